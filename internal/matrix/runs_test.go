package matrix

import "testing"

// A group's stop reaches the runs in it, not those that left, and stops
// a run that joins afterwards as it joins.
func TestStopGroup(t *testing.T) {
	var g stopGroup
	var stopped []string
	stopper := func(name string) func() { return func() { stopped = append(stopped, name) } }
	leaveA := g.join(stopper("a"))
	leaveB := g.join(stopper("b"))
	leaveA()
	if g.isStopped() || len(stopped) != 0 {
		t.Fatalf("before the stop: stopped %v, %v", g.isStopped(), stopped)
	}
	g.stop()
	if !g.isStopped() || len(stopped) != 1 || stopped[0] != "b" {
		t.Fatalf("the stop reached %v, want b", stopped)
	}
	leaveB()
	g.join(stopper("c"))()
	if len(stopped) != 2 || stopped[1] != "c" {
		t.Errorf("joining after the stop: stopped %v, want c stopped too", stopped)
	}
}
