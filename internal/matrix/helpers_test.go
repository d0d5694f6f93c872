package matrix

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"

	goldenfile "github.com/droidstar/droidstar/internal/golden"
	"github.com/droidstar/droidstar/internal/model"
	"github.com/droidstar/droidstar/internal/purpose"
)

// fixtures is testdata/matrix: CountDownTimer's purpose, two sim models of
// it (api34.dot refuses cancel() before start()), and under learned/ the
// models droidstar learned from them.
func fixtures(t *testing.T, parts ...string) string {
	t.Helper()
	dir, err := filepath.Abs(filepath.Join("..", "..", "testdata", "matrix"))
	if err != nil {
		t.Fatal(err)
	}
	return filepath.Join(append([]string{dir}, parts...)...)
}

// golden compares got with testdata/matrix/golden/name. The files there
// were first written by the command before the matrix became a package,
// so they hold its exact bytes.
func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	goldenfile.Check(t, filepath.Join("matrix", "golden"), name, got, "./internal/matrix")
}

func loadPurpose(t *testing.T) *purpose.Purpose {
	t.Helper()
	p, err := purpose.Load(fixtures(t, "purpose.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// learnedDocs are the models learned from api23.dot and api34.dot, keyed
// by the sim model's file name as a target gives it.
func learnedDocs(t *testing.T) map[string]*model.Document {
	t.Helper()
	docs := map[string]*model.Document{}
	for _, name := range []string{"api23", "api34"} {
		d, err := model.ReadFile(fixtures(t, "learned", name+".json"))
		if err != nil {
			t.Fatal(err)
		}
		docs[name+".dot"] = d
	}
	return docs
}

// fromLearned stands in for learning on the sim backend: it answers with
// the model learned from the sim model the target's purpose names, and
// fails as a missing model file would.
func fromLearned(t *testing.T) LearnFunc {
	docs := learnedDocs(t)
	return func(ctx context.Context, p *purpose.Purpose, tg Target) (*model.Document, error) {
		if p.Backend.Sim.ModelPath != tg.SimModel {
			return nil, fmt.Errorf("the purpose learns %s, not the target's %s", p.Backend.Sim.ModelPath, tg.SimModel)
		}
		d, ok := docs[tg.SimModel]
		if !ok {
			return nil, fmt.Errorf("backend.sim.model: open %s: no such file or directory", tg.SimModel)
		}
		return d, nil
	}
}

// simTargets are sim targets NAME=FILE.
func simTargets(pairs ...string) []Target {
	var ts []Target
	for i := 0; i+1 < len(pairs); i += 2 {
		ts = append(ts, Target{Name: pairs[i], SimModel: pairs[i+1]})
	}
	return ts
}
