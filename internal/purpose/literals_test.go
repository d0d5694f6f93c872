package purpose

import (
	"encoding/json"
	"testing"
)

// TestObjectLiteralsAndBehaviourOnTheWire: the new literals, listener
// names and callback behaviour reach the harness request in their wire
// form, and every field the harness may name in an error has a position,
// so that its refusal is shown at the purpose's line.
func TestObjectLiteralsAndBehaviourOnTheWire(t *testing.T) {
	src := `name: Pair
class: org.example.Pair
target:
  listeners:
    - {type: org.example.Question, name: first, register: setFirst}
    - {type: org.example.Question, name: second}
  init: [{call: setSecond, args: [{listener: second}]}]
callins:
  - symbol: make
    call: make
    args: [{path: data.txt}, {new: [java.lang.StringBuilder, "x"]}]
  - symbol: give
    call: take
    args: [{result: make}, {call: [java.nio.ByteBuffer, allocate, 16]}]
callbacks:
  - symbol: yes
    from: [first.ask]
    returns: true
    sleep_ms: 5
  - symbol: no
    from: [second.ask]
    throws: {new: [java.lang.IllegalStateException, boom]}
backend:
  jvm: {}
`
	p, err := Parse("p.yaml", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	wire := func(v any) string {
		b, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	for _, c := range []struct{ got, want string }{
		{wire(p.Target.Listeners), `[{"type":"org.example.Question","register":"setFirst","name":"first"},{"type":"org.example.Question","name":"second"}]`},
		{wire(p.Callins[0].Args), `[{"path":"data.txt"},{"new":["java.lang.StringBuilder","x"]}]`},
		{wire(p.Callins[1].Args), `[{"result":"make"},{"call":["java.nio.ByteBuffer","allocate",16]}]`},
		{wire(p.Callbacks), `[{"symbol":"yes","from":["first.ask"],"returns":true,"sleep_ms":5},{"symbol":"no","from":["second.ask"],"throws":{"new":["java.lang.IllegalStateException","boom"]}}]`},
	} {
		if c.got != c.want {
			t.Errorf("wire form\n got %s\nwant %s", c.got, c.want)
		}
	}
	for path, want := range map[string]Pos{
		"target.listeners[0].name":   {5, 42},
		"target.init[0].args[0]":     {7, 35},
		"callins[0].args[0]":         {11, 12},
		"callins[0].args[1].new[0]":  {11, 37},
		"callins[0].args[1].new[1]":  {11, 62},
		"callins[1].args[0].result":  {14, 21},
		"callins[1].args[1].call[0]": {14, 36},
		"callins[1].args[1].call[1]": {14, 57},
		"callins[1].args[1].call[2]": {14, 67},
		"callbacks[0].returns":       {18, 14},
		"callbacks[0].sleep_ms":      {19, 15},
		"callbacks[1].throws":        {22, 13},
		"callbacks[1].throws.new[0]": {22, 20},
	} {
		if got, ok := p.Where[path]; !ok || got != want {
			t.Errorf("Where[%s] = %v (%v), want %v", path, got, ok, want)
		}
	}
}

// TestCallbackLiteralOnTheWire: {callback: METHOD} and {callback: [METHOD,
// N]} reach the harness in the long form, with a named listener's
// NAME.METHOD and in dispose, and every place the harness may name in an
// error has a position, the short form's too.
func TestCallbackLiteralOnTheWire(t *testing.T) {
	src := `name: Pub
class: java.util.concurrent.SubmissionPublisher
target:
  listeners:
    - {type: java.util.concurrent.Flow$Subscriber, name: sub, register: subscribe}
  dispose: {call: consume, args: [{callback: sub.onSubscribe}]}
callins:
  - symbol: request
    on: {callback: sub.onSubscribe}
    call: request
    args: [{long: 1}]
  - symbol: again
    call: submit
    args: [{callback: [sub.onNext, 0]}]
callbacks:
  - symbol: subscribed
    from: [sub.onSubscribe]
  - symbol: next
    from: [sub.onNext/x]
backend:
  jvm: {}
`
	p, err := Parse("p.yaml", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	wire := func(v any) string {
		b, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	for _, c := range []struct{ got, want string }{
		{wire(p.Callins[0].On), `{"callback":["sub.onSubscribe",0]}`},
		{wire(p.Callins[1].Args), `[{"callback":["sub.onNext",0]}]`},
		{wire(p.Target.Dispose), `{"call":"consume","args":[{"callback":["sub.onSubscribe",0]}]}`},
	} {
		if c.got != c.want {
			t.Errorf("wire form\n got %s\nwant %s", c.got, c.want)
		}
	}
	for path, want := range map[string]Pos{
		"callins[0].on.callback":             {9, 20},
		"callins[0].on.callback[0]":          {9, 20},
		"callins[0].on.callback[1]":          {9, 20},
		"callins[1].args[0].callback[0]":     {14, 24},
		"callins[1].args[0].callback[1]":     {14, 36},
		"target.dispose.args[0].callback[0]": {6, 46},
	} {
		if got, ok := p.Where[path]; !ok || got != want {
			t.Errorf("Where[%s] = %v (%v), want %v", path, got, ok, want)
		}
	}
}
