package rollout

import (
	"io"
	"time"

	"github.com/schollz/progressbar/v3"
)

// NewProgressBar returns a [Progress] that draws a progress bar on w (a
// terminal): "Collecting rollouts  40% |████      | (2/5) [0s:0s]", as the
// collector's tqdm bar does.
func NewProgressBar(w io.Writer) Progress { return &bar{w: w} }

type bar struct {
	w io.Writer
	b *progressbar.ProgressBar
}

func (p *bar) Start(total int) {
	p.b = progressbar.NewOptions(total,
		progressbar.OptionSetWriter(p.w),
		progressbar.OptionSetDescription("Collecting rollouts"),
		progressbar.OptionShowCount(),
		progressbar.OptionSetItsString("rollouts"),
		progressbar.OptionShowIts(),
		progressbar.OptionSetPredictTime(true),
		progressbar.OptionSetElapsedTime(true),
		progressbar.OptionThrottle(100*time.Millisecond),
		progressbar.OptionSetWidth(30),
		progressbar.OptionSetRenderBlankState(true),
		progressbar.OptionOnCompletion(func() { _, _ = io.WriteString(p.w, "\n") }),
	)
}

func (p *bar) Done()   { _ = p.b.Add(1) }
func (p *bar) Finish() { _ = p.b.Finish() }
