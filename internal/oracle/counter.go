package oracle

import (
	"context"

	"github.com/droidstar/droidstar/internal/mealy"
	"github.com/droidstar/droidstar/internal/model"
)

// Counter sits at the top of a pipeline and counts the queries one asker
// (the learner, or the equivalence oracle) puts to it. It tags them with
// its phase on the way down, so that every stage below counts them in the
// right phase without the asker knowing about phases.
type Counter struct {
	Next     Oracle
	Phase    Phase
	Recorder *Recorder
}

// Ask implements Oracle.
func (c *Counter) Ask(ctx context.Context, queries []mealy.Word) ([]Answer, error) {
	ctx = WithPhase(ctx, c.Phase)
	c.Recorder.Asked(ctx, len(queries))
	return c.Next.Ask(ctx, queries)
}

// Explain implements Explainer by asking the stages below.
func (c *Counter) Explain(w mealy.Word) (*model.ErrInfo, bool) {
	return Explain(c.Next, w)
}
