package purpose

import (
	"fmt"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
)

// resolvePath anchors a path written in a purpose at the purpose's
// directory, so that a purpose and its model can move together.
func resolvePath(file, p string) string {
	p = filepath.FromSlash(p)
	if filepath.IsAbs(p) || file == "" {
		return p
	}
	return filepath.Join(filepath.Dir(file), p)
}

// files reads the files or the jars, whose items take keys.
func (d *decoder) files(p *Purpose, v value, keys []string) []File {
	items, ok := d.list(v, "files")
	if !ok {
		return nil
	}
	var out []File
	seen := map[string]Pos{}
	for _, item := range items {
		if !item.ok {
			continue
		}
		// The harness names a jar by its index when it cannot load it.
		d.where(p, item)
		var f File
		var at value
		if s, isStr := stringValue(item.node); isStr {
			f = File{From: s, Name: filepath.Base(filepath.FromSlash(s))}
			at = item
		} else {
			fm := d.mapping(item, keys)
			if fm == nil {
				continue
			}
			if ff := d.req(fm, "from"); ff != nil {
				f.From, _ = d.str(ff.value)
				f.Name = filepath.Base(filepath.FromSlash(f.From))
				at = ff.value
			}
			if nf := fm.opt("name"); nf != nil {
				f.Name, _ = d.str(nf.value)
				d.fileName(nf.value, f.Name)
			}
		}
		if strings.TrimSpace(f.From) == "" {
			d.errAt(item.pos, item.path, "want a file path")
			continue
		}
		if prev, dup := seen[f.Name]; dup {
			d.errAt(item.pos, item.path, "duplicate file name %s (first at %s)", strconv.Quote(f.Name), prev)
			continue
		}
		seen[f.Name] = item.pos
		f.Path = resolvePath(d.file, f.From)
		f.Pos = at.pos
		out = append(out, f)
	}
	return out
}

func (d *decoder) permissions(p *Purpose, v value) []string {
	items, ok := d.list(v, "permissions")
	if !ok {
		return nil
	}
	var out []string
	for _, item := range items {
		s, ok := d.str(item)
		if !ok {
			continue
		}
		if !strings.Contains(s, ".") || strings.ContainsAny(s, " \t\n;&|$`'\"") {
			d.errAt(item.pos, item.path, "invalid permission %s: want a name such as android.permission.RECORD_AUDIO", quoteShort(s))
			continue
		}
		if !slices.Contains(out, s) {
			// Recorded by index in Permissions, so that a backend that
			// cannot grant one points at its line.
			d.where(p, value{path: fmt.Sprintf("permissions[%d]", len(out)), pos: item.pos})
			out = append(out, s)
		}
	}
	return out
}

// adapters reads the adapter class names: classes in the purpose's jars
// that implement org.droidstar.harness.core.Adapter.
func (d *decoder) adapters(p *Purpose, v value) []string {
	items, ok := d.list(v, "adapter classes")
	if !ok {
		return nil
	}
	var out []string
	for _, item := range items {
		if s := d.javaName(p, item, "class"); s != "" {
			out = append(out, s)
		}
	}
	return out
}
