package rollout

// CheckInput reads and parses the rows file at path as [Run] does (each line
// a JSON object with responses_create_params; at most limit rows when limit
// is positive) without running anything: gymkit rollout calls it before it
// starts or reaches an instance, so that a bad rows file costs no instance
// start. The error is an *[InputError] naming the file and line; nil when Run
// would accept the rows. It reads the whole file once (Run reads it again).
func CheckInput(path string, limit int) error {
	_, err := readRows(path, limit)
	return err
}
