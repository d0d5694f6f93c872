package run

import (
	"errors"
	"reflect"
	"testing"

	"github.com/droidstar/droidstar/internal/engine"
	"github.com/droidstar/droidstar/internal/model"
)

func TestParseBound(t *testing.T) {
	tests := []struct {
		in      string
		want    boundChoice
		wantErr string
	}{
		{in: "3", want: boundChoice{fixed: 3}},
		{in: "auto", want: boundChoice{auto: true, max: engine.DefaultAutoMax}},
		{in: "auto:6", want: boundChoice{auto: true, max: 6}},
		{in: "0", wantErr: "--bound must be at least 1, got 0"},
		{in: "auto:1", wantErr: "--bound auto:MAX needs MAX above 1 (the bound it starts from), got 1"},
		{in: "auto6", wantErr: `--bound must be a number, auto or auto:MAX, got "auto6"`},
		{in: "auto:x", wantErr: `--bound must be a number, auto or auto:MAX, got "auto:x"`},
		{in: "two", wantErr: `--bound must be a number, auto or auto:MAX, got "two"`},
	}
	for _, tc := range tests {
		got, err := parseBound(tc.in)
		if tc.wantErr != "" {
			if err == nil || err.Error() != tc.wantErr || !isUsage(err) {
				t.Errorf("%q: error %v, want usage error %q", tc.in, err, tc.wantErr)
			}
			continue
		}
		if err != nil || got != tc.want {
			t.Errorf("%q: %+v, %v; want %+v", tc.in, got, err, tc.want)
		}
	}
}

func TestParseConformance(t *testing.T) {
	tests := []struct {
		in      string
		want    *model.Conformance
		wantErr string
	}{
		{in: "off"},
		{in: "random:200", want: &model.Conformance{Method: "random", Walks: 200, Seed: 1}},
		{in: "random:200:7", want: &model.Conformance{Method: "random", Walks: 200, Seed: 7}},
		{in: "wp:0", want: &model.Conformance{Method: "wp"}},
		{in: "wp:2", want: &model.Conformance{Method: "wp", Depth: 2}},
		{in: "random:0", wantErr: "--conformance random:N needs at least 1 walk, got 0"},
		{in: "random:5:x", wantErr: `--conformance random:N:SEED: the seed must be a number, got "x"`},
		{in: "wp:-1", wantErr: "--conformance wp:K needs a depth of at least 0, got -1"},
		{in: "wp", wantErr: `--conformance must be off, random:N, random:N:SEED or wp:K, got "wp"`},
		{in: "random:1:2:3", wantErr: `--conformance must be off, random:N, random:N:SEED or wp:K, got "random:1:2:3"`},
		{in: "w-method:1", wantErr: `--conformance must be off, random:N, random:N:SEED or wp:K, got "w-method:1"`},
	}
	for _, tc := range tests {
		got, err := ParseConformance(tc.in)
		if tc.wantErr != "" {
			if err == nil || err.Error() != tc.wantErr || !isUsage(err) {
				t.Errorf("%q: error %v, want usage error %q", tc.in, err, tc.wantErr)
			}
			continue
		}
		if err != nil || !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%q: %+v, %v; want %+v", tc.in, got, err, tc.want)
		}
	}
}

func isUsage(err error) bool {
	var e *UsageError
	return errors.As(err, &e)
}
