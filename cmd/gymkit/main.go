// Command gymkit runs gymkit resources servers, with every environment shipped
// in servers/all. It is package cli's command line (see its documentation or
// run "gymkit help"); a program of your own module is the same three lines with
// your environments instead of servers/all (README.md, "Build on gymkit from
// your own module").
package main

import (
	"context"
	"os"

	"github.com/gymkit/gymkit/cli"
	_ "github.com/gymkit/gymkit/servers/all" // registers the shipped server types
)

func main() { os.Exit(cli.Main(context.Background(), os.Args)) }
