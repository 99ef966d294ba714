package rollout

import "fmt"

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

// CheckRollouts is [CheckInput] for a run of numRepeats rollouts per row (0
// means 1): it also refuses, as Run does, rows × numRepeats above
// [MaxRollouts], with an *[InputError].
func CheckRollouts(path string, limit, numRepeats int) error {
	rows, err := readRows(path, limit)
	if err != nil {
		return err
	}
	return tooManyRollouts(path, len(rows), max(numRepeats, 1))
}

// tooManyRollouts refuses rows × numRepeats above MaxRollouts.
func tooManyRollouts(path string, rows, numRepeats int) error {
	if n := int64(rows) * int64(numRepeats); n > MaxRollouts {
		return &InputError{Path: path, Msg: fmt.Sprintf("%d rows × %d repeats is %d rollouts; a run makes at most %d (lower --num-repeats, or split the input)",
			rows, numRepeats, n, MaxRollouts)}
	}
	return nil
}
