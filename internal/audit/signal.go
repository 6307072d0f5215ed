package audit

import (
	"context"
	"errors"
	"os"
	"os/signal"
	"syscall"
)

// Interrupt is the cause of a context ended by a signal.
type Interrupt struct{ Signal os.Signal }

func (i Interrupt) Error() string {
	if i.Signal == syscall.SIGTERM {
		return "SIGTERM"
	}
	return "SIGINT"
}

// NotifyContext returns a context that ends, with an [Interrupt] cause, on the
// first SIGINT or SIGTERM. The run then stops its server and writes what it
// has. After that first signal both have their default effect again, so a
// second one ends mcp-fuzz at once.
func NotifyContext(parent context.Context) (context.Context, context.CancelFunc) {
	ctx, cancel := context.WithCancelCause(parent)
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	go func() {
		select {
		case s := <-sigs:
			signal.Stop(sigs)
			cancel(Interrupt{Signal: s})
		case <-ctx.Done():
			signal.Stop(sigs)
		}
	}()
	return ctx, func() { cancel(context.Canceled) }
}

// interruptedCode returns the exit code for a run whose context ended: 143
// after SIGTERM, else 130.
func interruptedCode(ctx context.Context) int {
	var i Interrupt
	if errors.As(context.Cause(ctx), &i) && i.Signal == syscall.SIGTERM {
		return 128 + int(syscall.SIGTERM)
	}
	return ExitInterrupted
}

// InterruptedCode is the exit code of a front end whose ctx ended: 130
// after SIGINT, 143 after SIGTERM.
func InterruptedCode(ctx context.Context) int { return interruptedCode(ctx) }
