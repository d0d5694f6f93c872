package cache

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/droidstar/droidstar/internal/mealy"
	"github.com/droidstar/droidstar/internal/model"
	"github.com/droidstar/droidstar/internal/oracle"
)

// Clear says whether the leading answer of a vote wins: it must hold more
// than half of all votes and at least two more than any other answer.
// With the default three re-runs (five votes: the earlier answer, the
// contradicting one and three re-runs) 3-1-1, 4-1 and 5-0 win; 3-2 and
// 2-2-1 do not, and get three more re-runs before the vote is lost.
func Clear(votes []int) bool {
	total, top, second := 0, 0, 0
	for _, v := range votes {
		total += v
		switch {
		case v > top:
			top, second = v, top
		case v > second:
			second = v
		}
	}
	return 2*top > total && top-second >= 2
}

// tally is one distinct answer of a vote.
type tally struct {
	answer  oracle.Answer
	votes   int
	devices []string // one per vote, "" when unknown
}

// truncate cuts an answer to its first n outputs.
func truncate(a oracle.Answer, n int) oracle.Answer {
	t := oracle.Answer{Outputs: append(mealy.Word(nil), a.Outputs[:n]...), ErrAt: a.ErrAt, Err: a.Err, Device: a.Device}
	if t.ErrAt >= n {
		t.ErrAt, t.Err = -1, nil
	}
	return t
}

// vote settles the contradiction nd (raised by inserting now) by running
// its query c.Repeat more times. It reports whether the tree changed an
// answer it had already given.
func (c *Cache) vote(ctx context.Context, nd *oracle.NondeterminismError, now oracle.Answer) (revised bool, err error) {
	p := nd.Query
	c.mu.Lock()
	seen := c.touchFor(ctx)
	before, ok := c.lookup(p, &seen)
	c.mu.Unlock()
	if !ok {
		return false, nd
	}
	before.Device = nd.BeforeDevice
	var tallies []*tally
	add := func(a oracle.Answer) {
		a = truncate(a, len(p))
		for _, t := range tallies {
			if slices.Equal(t.answer.Outputs, a.Outputs) {
				t.votes++
				t.devices = append(t.devices, a.Device)
				return
			}
		}
		tallies = append(tallies, &tally{answer: a, votes: 1, devices: []string{a.Device}})
	}
	add(before)
	add(now)
	// A second round of re-runs settles the rare vote where a flaky
	// device erred twice (3-2); a target flaky enough to need a third is
	// reported instead.
	// The first re-runs go to the device of the new answer, to that of the
	// earlier one, and to the first again: a flaky device then answers
	// again, differently, and devices that disagree each repeat
	// themselves. The new answer's device gets two re-runs because a
	// flaky device can repeat its wrong answer once (a one-symbol query
	// has few wrong answers to choose from): on mediaplayer with one
	// answer in 200 flipped on two lanes, one re-run each still read as
	// "devices disagree" in about one run of 100.
	var pins []string
	if now.Device != "" && before.Device != "" && before.Device != now.Device {
		pins = []string{now.Device, before.Device, now.Device}
	}
	clear := false
	for round := 0; round < 2 && !clear; round++ {
		for k := range c.Repeat {
			rctx := oracle.AsRerun(ctx)
			if round == 0 && k < len(pins) {
				rctx = oracle.OnDevice(rctx, pins[k])
			}
			got, err := c.Next.Ask(rctx, []mealy.Word{p})
			if err != nil {
				return false, fmt.Errorf("re-running %s to settle a contradiction: %w", c.Inputs.Format(p), err)
			}
			c.Recorder.Rerun(slices.Equal(got[0].Outputs[:len(p)], before.Outputs))
			add(got[0])
		}
		if d := c.devicesDisagree(p, tallies); d != nil {
			return false, d
		}
		slices.SortStableFunc(tallies, func(a, b *tally) int { return b.votes - a.votes })
		counts := make([]int, len(tallies))
		for k, t := range tallies {
			counts[k] = t.votes
		}
		clear = Clear(counts)
	}
	if !clear {
		ve := &oracle.VoteError{Query: p, Inputs: c.Inputs, Outputs: c.Outputs}
		for _, t := range tallies {
			ve.Answers = append(ve.Answers, oracle.VoteAnswer{Outputs: t.answer.Outputs, Votes: t.votes, Devices: t.named()})
		}
		return false, ve
	}
	v := model.Vote{Query: c.Inputs.Strings(p)}
	for _, t := range tallies {
		v.Answers = append(v.Answers, model.VoteAnswer{Outputs: c.Outputs.Strings(t.answer.Outputs), Votes: t.votes, Devices: t.named()})
	}
	c.Recorder.Voted(v)
	win := tallies[0].answer
	c.mu.Lock()
	defer c.mu.Unlock()
	// A majority saw every edge of p: none rests on one answer any more.
	defer c.confirm(p)
	if slices.Equal(win.Outputs, before.Outputs) {
		return false, nil // the contradicting answer was the odd one out
	}
	settled := c.touchFor(ctx)
	if err := c.replace(p, win, &settled); err != nil {
		return false, errors.Join(nd, err)
	}
	return true, nil
}

// devicesDisagree tells several devices that each answer consistently,
// but differently from each other, apart from one flaky device (one that
// gave two answers): the first is a setup problem no vote should hide.
// The vote's first re-runs go to the devices of the two disagreeing
// answers (see vote), so each of them answers at least twice.
func (c *Cache) devicesDisagree(p mealy.Word, tallies []*tally) *oracle.NondeterminismError {
	answerOf := map[string]int{}
	var devices []string
	for k, t := range tallies {
		for _, d := range t.devices {
			if d == "" {
				continue
			}
			if prev, ok := answerOf[d]; ok && prev != k {
				return nil // this device itself is flaky
			}
			if _, ok := answerOf[d]; !ok {
				devices = append(devices, d)
			}
			answerOf[d] = k
		}
	}
	for _, a := range devices {
		for _, b := range devices {
			if answerOf[a] != answerOf[b] {
				return &oracle.NondeterminismError{Query: p, Before: tallies[answerOf[a]].answer.Outputs, Now: tallies[answerOf[b]].answer.Outputs,
					Inputs: c.Inputs, Output: c.Outputs, BeforeDevice: a, NowDevice: b, Lanes: c.Lanes}
			}
		}
	}
	return nil
}

// replace makes a the tree's answer to p, dropping what the tree held
// below the first output that changes: it was learned through an answer
// the vote overturned.
func (c *Cache) replace(p mealy.Word, a oracle.Answer, t *touch) error {
	n := c.root
	for j, in := range p {
		if forced, ok := c.Sem.Forced(int(n.out), in); ok {
			if a.Outputs[j] != forced {
				return fmt.Errorf("the majority answer to %s breaks the closure's rules", c.Inputs.Format(p))
			}
			if forced == c.Sem.Err {
				return nil
			}
			continue
		}
		if n.children == nil || n.children[in] == nil {
			break
		}
		if int(n.children[in].out) != a.Outputs[j] {
			c.cut(n, in)
			break
		}
		n = n.children[in]
	}
	return c.insert(p, a, t)
}

// named lists the devices that gave the tally's votes, each once, in the
// order they voted; votes of unknown devices are left out.
func (t *tally) named() []string {
	var out []string
	for _, d := range t.devices {
		if d != "" && !slices.Contains(out, d) {
			out = append(out, d)
		}
	}
	return out
}
