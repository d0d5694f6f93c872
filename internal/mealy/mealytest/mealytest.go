// Package mealytest holds machines that tests of several packages learn
// and check against, so each is written once.
package mealytest

import "github.com/droidstar/droidstar/internal/mealy"

// ServerSocket is a closure machine whose callins bind, accept and close
// are all followed by a wait:
//
//	0 open  --bind-->  1 --wait/quiet--> 3 bound, a client waiting
//	0, 3, 4 --close--> 2 --wait/quiet--> 4 closed
//	3 --accept--> 6 --wait/accepted--> 3;  4 --accept--> 7 --wait/failed--> 4
//
// Everything else is err (state 5, the sink), and so is every input but
// wait right after a callin (1, 2, 6, 7), as the restrictions make it.
// States 1 and 2 differ only on "wait accept wait".
func ServerSocket() (*mealy.Machine, mealy.Forcing) {
	in, out, err := mealy.ClosureAlphabets([]string{"bind", "accept", "close"}, []string{"accepted", "failed"})
	if err != nil {
		panic(err)
	}
	const bind, accept, close, wait = 0, 1, 2, 3
	const ok, quiet, errO, accepted, failed = 0, 1, 2, 3, 4
	m := mealy.NewMachine(in, out, 8)
	for q := 0; q < 8; q++ {
		for i := 0; i < 4; i++ {
			m.SetTransition(q, i, errO, 5)
		}
	}
	m.SetTransition(0, bind, ok, 1)
	m.SetTransition(0, close, ok, 2)
	m.SetTransition(0, wait, quiet, 0)
	m.SetTransition(1, wait, quiet, 3)
	m.SetTransition(2, wait, quiet, 4)
	for _, q := range []int{3, 4} {
		m.SetTransition(q, close, ok, 2)
		m.SetTransition(q, wait, quiet, q)
	}
	m.SetTransition(3, accept, ok, 6)
	m.SetTransition(4, accept, ok, 7)
	m.SetTransition(6, wait, accepted, 3)
	m.SetTransition(7, wait, failed, 4)
	return m, mealy.Forcing{Wait: wait, Forces: []bool{true, true, true, false}}
}
