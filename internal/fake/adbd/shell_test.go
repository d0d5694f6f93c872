package adbd

import (
	"reflect"
	"testing"
)

func TestTokenize(t *testing.T) {
	tests := []struct {
		line string
		want []word
	}{
		{"getprop ro.build.version.sdk", []word{{text: "getprop"}, {text: "ro.build.version.sdk"}}},
		{`echo '' "" a\ b 'c"d' "e'f" "g\"h\\i\j"`, []word{{text: "echo"}, {text: ""}, {text: ""}, {text: "a b"}, {text: `c"d`}, {text: "e'f"}, {text: `g"h\i\j`}}},
		{"a&&b||c;d\ne", []word{{text: "a"}, {op: "&&"}, {text: "b"}, {op: "||"}, {text: "c"}, {op: ";"}, {text: "d"}, {op: ";"}, {text: "e"}}},
		{"rm -rf 'x y' # a comment", []word{{text: "rm"}, {text: "-rf"}, {text: "x y"}}},
		{"echo a#b", []word{{text: "echo"}, {text: "a#b"}}},
	}
	for _, tt := range tests {
		got, err := tokenize(tt.line)
		if err != nil || !reflect.DeepEqual(got, tt.want) {
			t.Errorf("tokenize(%q) = %q, %v; want %q", tt.line, got, err, tt.want)
		}
	}
	for _, bad := range []string{"a | b", "a > f", "echo $HOME", "echo \"$x\"", "a &", "(a)", "echo `x`", "echo 'open", `echo "open`} {
		if got, err := tokenize(bad); err == nil {
			t.Errorf("tokenize(%q) = %q, want an error", bad, got)
		}
	}
}

func TestCleanDevPath(t *testing.T) {
	for in, want := range map[string]string{
		"data/local/tmp":      "/data/local/tmp",
		"/data/../../etc":     "/etc",
		"/sdcard//x/./y/":     "/sdcard/x/y",
		"../../../../outside": "/outside",
	} {
		if got := cleanDevPath(in); got != want {
			t.Errorf("cleanDevPath(%q) = %q, want %q", in, got, want)
		}
	}
}
