// Package nemolaunch holds the acceptance harness of gymkit under NeMo Gym's launcher
// (gym env start), and nothing else: its tests (Linux only) replay what the launcher
// handed each server process in the launches recorded in
// ../shared/data/nemo-launcher/captures (that folder's README.md describes them) against
// the gymkit binary and the app.py NeMo runs, and check what a user of the launcher sees.
//
// For each recorded launch, the four shipped environments are started at once, each as
// NeMo starts it: `python app.py` (argv ["python", "app.py"], python found on the
// recorded PATH) in its server folder, with the recorded environment variables in their
// recorded order, byte for byte, except the recording's placeholder paths (<CAPTURE_ROOT>,
// <NEMO_GYM>, <PEER_VENV>, <HOME>, <TMP>), mapped into a temporary tree, and its ports,
// mapped to free ones. The tree has, as the recording's had:
//
//	capture/root/resources_servers/<type>/app.py          the repository's resources_servers/<type>/app.py (see appPy)
//	capture/root/resources_servers/<type>/requirements.txt  empty, NeMo's marker
//	capture/root/resources_servers/<type>/data/shared/...   the relative data_dir: data/shared
//	capture/root/data/shared/...                          the absolute ++data_dir of ways 2 and 4b
//	capture/root/bin/gymkit                               the binary, built once per test run
//	capture/root/configs/*.yaml, <folder>/configs/*.yaml  decoys (text that is not YAML) where
//	<folder>/env.yaml                                     config_paths and env.yaml would be read
//	capture/elsewhere/                                    the launcher's cwd in ways 2 and 3
//	peer_venv/bin/python                                  a link to the machine's python3
//
// The workplace_assistant data is copied from ../shared/data/nemo-gym/workplace_assistant
// at test time. Each server's parent is a stand-in for the launcher (the test binary in
// its "parent" role), in its own process group as the launcher is, which the test can
// signal or SIGKILL; the test process is a child subreaper, so that a server whose parent
// was killed becomes its child and its exit status can be read.
//
// Run it with `go test ./tests/nemolaunch` (part of make test); it needs python3 and
// the shared data beside the repository, and fails without them.
package nemolaunch
