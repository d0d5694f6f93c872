package purpose_test

import (
	"encoding/json"
	"reflect"
	"slices"
	"sort"
	"testing"

	"github.com/droidstar/droidstar/internal/harness"
	"github.com/droidstar/droidstar/internal/purpose"
)

// TestHostSendsSchemaKeys checks the host's side of the wire against the
// schema table: each Go type the configure request is marshalled from,
// with every field set, writes exactly the keys the table says the
// harness is sent in that map. (Object literals are written by the
// decoder under the key it read, from the table's list.)
func TestHostSendsSchemaKeys(t *testing.T) {
	cases := []struct {
		in string
		v  any
	}{
		{"", harness.Request{}},
		{"target", purpose.Target{}},
		{"target.factory", purpose.Factory{}},
		{"target.listeners[]", purpose.Listener{}},
		{"target.init[]", purpose.Call{}},
		{"target.dispose", purpose.Call{}},
		{"callins[]", purpose.Callin{}},
		{"callbacks[]", purpose.Callback{}},
		{"details.*[]", purpose.DetailPart{}},
		{"timeouts", harness.Timeouts{}},
		{"<action>", purpose.Action{}},
		{"<action>.write", purpose.WriteAction{}},
		{"<action>.append", purpose.WriteAction{}},
		{"<action>.sqlite", purpose.SQLiteAction{}},
	}
	want := map[string][]string{}
	for _, k := range purpose.Schema() {
		if k.Wire != purpose.Kept {
			want[k.In] = append(want[k.In], k.Name)
		}
	}
	for _, c := range cases {
		v := reflect.New(reflect.TypeOf(c.v))
		fill(v.Elem())
		data, err := json.Marshal(v.Interface())
		if err != nil {
			t.Fatalf("%s: %v", c.in, err)
		}
		var obj map[string]json.RawMessage
		if err := json.Unmarshal(data, &obj); err != nil {
			t.Fatalf("%s: %v", c.in, err)
		}
		var got []string
		for k := range obj {
			got = append(got, k)
		}
		sort.Strings(got)
		w := slices.Sorted(slices.Values(want[c.in]))
		if !slices.Equal(got, w) {
			t.Errorf("%T at %q writes the keys %v, the schema table sends %v", c.v, c.in, got, w)
		}
		delete(want, c.in)
	}
	delete(want, "<literal>")
	for in := range want {
		t.Errorf("the table sends keys in %q, but no Go type of the request is checked for them", in)
	}
}

// fill sets every exported field of v, and of what it holds, to a value
// that JSON does not leave out as empty.
func fill(v reflect.Value) {
	switch v.Kind() {
	case reflect.Struct:
		for i := 0; i < v.NumField(); i++ {
			if v.Type().Field(i).IsExported() {
				fill(v.Field(i))
			}
		}
	case reflect.Pointer:
		v.Set(reflect.New(v.Type().Elem()))
		fill(v.Elem())
	case reflect.Slice:
		v.Set(reflect.MakeSlice(v.Type(), 1, 1))
		fill(v.Index(0))
	case reflect.Map:
		m := reflect.MakeMap(v.Type())
		k, e := reflect.New(v.Type().Key()).Elem(), reflect.New(v.Type().Elem()).Elem()
		fill(k)
		fill(e)
		m.SetMapIndex(k, e)
		v.Set(m)
	case reflect.Interface:
		v.Set(reflect.ValueOf("x"))
	case reflect.String:
		v.SetString("x")
	case reflect.Bool:
		v.SetBool(true)
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		v.SetInt(1)
	case reflect.Float32, reflect.Float64:
		v.SetFloat(1)
	}
}
