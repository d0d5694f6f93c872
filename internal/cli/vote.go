package cli

import (
	"errors"
	"fmt"

	"github.com/droidstar/droidstar/internal/oracle"
)

// ExitFlaky is the exit code of a run stopped by answers that re-running
// could not settle.
const ExitFlaky = 4

// flakyError gives an unsettled vote its exit code and its report: the
// disagreeing traces side by side and the likely fixes.
func flakyError(err error) error {
	var ve *oracle.VoteError
	if !errors.As(err, &ve) {
		return err
	}
	return &exitError{code: ExitFlaky, err: fmt.Errorf("%w\n%s", err, ve.Report())}
}
