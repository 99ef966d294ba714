package loadbench

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/signal"
	"runtime"
	"runtime/pprof"
	"syscall"
	"time"

	"github.com/gymkit/gymkit/server"
)

// Debug is what a target process answers on GET <debug url>/debug: its
// goroutine count (runtime.NumGoroutine, the debug listener's own
// goroutines included) and what its instance logged at Warn and Error.
type Debug struct {
	Goroutines int    `json:"goroutines"`
	Warnings   int64  `json:"warnings"`              // records logged at Warn
	Errors     int64  `json:"errors"`                // records logged at Error or above
	FirstError string `json:"first_error,omitempty"` // the first Error record, with its attributes
}

// ServeTarget builds the server of kind (see [Build]) and serves it on a
// loopback port until ctx is done, with a second loopback listener for
// GET /debug ([Debug]; GET /debug?stacks writes every goroutine's stack). Once both listen it writes one line to ready:
//
//	READY <target url> <debug url>
//
// The gymkit kinds are served by their host (server.Host.Serve: the
// timeouts, request logging and drain of gymkit serve); chi and sdk by an
// http.Server with the same ReadHeaderTimeout and IdleTimeout.
func ServeTarget(ctx context.Context, kind, root string, ready io.Writer) error {
	t, err := Build(ctx, kind, root)
	if err != nil {
		return err
	}
	dln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		if t.Host != nil {
			t.Host.Close()
		}
		return err
	}
	dbg := &http.Server{ReadHeaderTimeout: 5 * time.Second, Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Query().Has("stacks") {
			// ?stacks: every goroutine's stack, as runtime/pprof's debug=2.
			w.Header().Set("Content-Type", "text/plain; charset=utf-8")
			_ = pprof.Lookup("goroutine").WriteTo(w, 2)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(Debug{Goroutines: runtime.NumGoroutine(),
			Warnings: t.Logs.Warnings.Load(), Errors: t.Logs.Errors.Load(), FirstError: t.Logs.FirstError()})
	})}
	go func() { _ = dbg.Serve(dln) }()
	defer dbg.Close()

	if t.Host != nil {
		errc := make(chan error, 1)
		go func() { errc <- t.Host.Serve(ctx) }()
		fmt.Fprintf(ready, "READY %s http://%s\n", t.Host.Instances()[0].URL(), dln.Addr())
		return <-errc
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return err
	}
	srv := &http.Server{Handler: t.Handler, ReadHeaderTimeout: server.ReadHeaderTimeout, IdleTimeout: server.IdleTimeout}
	go func() {
		<-ctx.Done()
		sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = srv.Shutdown(sctx)
	}()
	fmt.Fprintf(ready, "READY http://%s http://%s\n", ln.Addr(), dln.Addr())
	if err := srv.Serve(ln); !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}

// TargetMain is the main of a target process: it serves kind (see
// [ServeTarget]) until its standard input reaches EOF (the driver closes
// it, or exits) or SIGTERM/SIGINT, and returns the exit code (0 after a
// clean drain).
func TargetMain(kind, root string) int {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	go func() {
		_, _ = io.Copy(io.Discard, os.Stdin)
		cancel()
	}()
	if err := ServeTarget(ctx, kind, root, os.Stdout); err != nil {
		fmt.Fprintf(os.Stderr, "loadbench target %s: %v\n", kind, err)
		return 1
	}
	return 0
}
