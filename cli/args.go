package cli

import (
	"fmt"
	"log/slog"
	"path/filepath"
	"strings"
)

// argScanner reads a subcommand's arguments with gymkit's conventions: flags
// and key=value overrides interleaved; one or two dashes; a flag's value
// inline after "=" or in the next argument; -h/--help; every argument after
// "--" an override. Each subcommand gives its flags and what they do.
type argScanner struct {
	// known reports whether name (without dashes) is a flag of the command.
	known func(name string) bool
	// set applies one flag; flag is the flag as written (for messages).
	set func(flag, name, value string) error
	// hints maps a file extension of a stray positional argument to the flag
	// it was probably meant for ("did you mean --config x.yaml?"); other
	// stray arguments get usage as the hint.
	hints map[string]string
	usage string
	// bools are the flags that take no value ("--json"); "--json=false"
	// still gives one.
	bools map[string]bool
}

// scan applies every flag and returns the overrides in order, errHelp for
// -h/--help, or an error naming the faulty argument.
func (s argScanner) scan(args []string) ([]string, error) {
	var overrides []string
	for i := 0; i < len(args); i++ {
		arg := args[i]
		if arg == "--" {
			for _, o := range args[i+1:] {
				if !strings.Contains(o, "=") {
					return nil, fmt.Errorf("argument %q after --: overrides have the form key=value", o)
				}
				overrides = append(overrides, o)
			}
			break
		}
		if !strings.HasPrefix(arg, "-") || arg == "-" {
			// Hydra's ~key deletion goes to config.Load too, which explains it is unsupported.
			if !strings.Contains(arg, "=") && !strings.HasPrefix(arg, "~") {
				hint := s.usage
				if flag, ok := s.hints[filepath.Ext(arg)]; ok {
					hint = "did you mean " + flag + " " + arg + "?"
				}
				return nil, fmt.Errorf("unexpected argument %q: %s", arg, hint)
			}
			overrides = append(overrides, arg)
			continue
		}
		flag, value, hasValue := strings.Cut(arg, "=") // as written: -c, --config
		name := strings.TrimPrefix(strings.TrimPrefix(flag, "-"), "-")
		if name == "h" || name == "help" {
			if hasValue {
				return nil, fmt.Errorf("flag %s takes no value", flag)
			}
			return nil, errHelp
		}
		if !s.known(name) {
			return nil, fmt.Errorf("unknown flag %s", flag)
		}
		if !hasValue && s.bools[name] {
			value, hasValue = "true", true
		}
		if !hasValue {
			if i+1 == len(args) {
				return nil, fmt.Errorf("flag %s needs a value", flag)
			}
			i++
			value = args[i]
		}
		if err := s.set(flag, name, value); err != nil {
			return nil, err
		}
	}
	return overrides, nil
}

// commonFlags are the flags every subcommand has: the config files and the
// logging flags.
type commonFlags struct {
	files     []string
	logFormat string
	logLevel  slog.Level
}

// set applies one of the common flags and reports whether name was one.
func (c *commonFlags) set(flag, name, value string) (bool, error) {
	switch name {
	case "c", "config":
		if value == "" {
			return true, fmt.Errorf("flag %s needs a file name", flag)
		}
		c.files = append(c.files, value)
	case "log-format":
		if value != "text" && value != "json" {
			return true, fmt.Errorf("flag %s: %q is not a log format: text or json", flag, value)
		}
		c.logFormat = value
	case "log-level":
		if err := c.logLevel.UnmarshalText([]byte(value)); err != nil {
			return true, fmt.Errorf("flag %s: %q is not a level: debug, info, warn or error", flag, value)
		}
	default:
		return false, nil
	}
	return true, nil
}
