package parentwatch

import (
	"os"
	"strconv"
	"strings"
)

// zombie reports whether process pid has exited and waits to be reaped:
// its state in /proc/<pid>/stat, the field after the parenthesized command
// name, is Z (or X, being reaped). A stat that cannot be read is no zombie.
func zombie(pid int) bool {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false
	}
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	return i >= 0 && (strings.HasPrefix(s[i:], ") Z") || strings.HasPrefix(s[i:], ") X"))
}
