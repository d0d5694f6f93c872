package main

import (
	"encoding/binary"
	"errors"
	"fmt"
	"strings"
)

// Constant-pool tags (JVMS §4.4) and the opcodes whose operands vary in
// length (JVMS §6.5).
const (
	tagUtf8          = 1
	tagLong          = 5
	tagDouble        = 6
	tagClass         = 7
	tagInvokeDynamic = 18

	opTableswitch   = 0xaa
	opLookupswitch  = 0xab
	opInvokedynamic = 0xba
	opWide          = 0xc4
)

// Use is one method of a class whose code runs invokedynamic.
type Use struct {
	Class  string // binary name, with dots
	Method string // readable: "ConnectionPool(int, long, java.util.concurrent.TimeUnit)", "static initialiser"
}

// reader reads big-endian class-file items and remembers the first error.
type reader struct {
	b   []byte
	off int
	err error
}

func (r *reader) take(n int) []byte {
	if r.err != nil {
		return nil
	}
	if n < 0 || r.off+n > len(r.b) {
		r.err = errors.New("truncated class file")
		return nil
	}
	s := r.b[r.off : r.off+n]
	r.off += n
	return s
}

func (r *reader) u1() int {
	if b := r.take(1); b != nil {
		return int(b[0])
	}
	return 0
}

func (r *reader) u2() int {
	if b := r.take(2); b != nil {
		return int(binary.BigEndian.Uint16(b))
	}
	return 0
}

func (r *reader) u4() int {
	if b := r.take(4); b != nil {
		return int(binary.BigEndian.Uint32(b))
	}
	return 0
}

// scanClass returns the methods of one class file that run invokedynamic,
// in the order the class declares them. A class whose constant pool holds
// no CONSTANT_InvokeDynamic has none, and its methods are not walked.
func scanClass(data []byte) (class string, uses []Use, err error) {
	r := &reader{b: data}
	if r.u4() != 0xCAFEBABE {
		return "", nil, errors.New("not a class file (bad magic)")
	}
	r.u2() // minor
	r.u2() // major
	n := r.u2()
	utf8 := make(map[int]string)
	classes := make(map[int]int)
	indy := false
	for i := 1; i < n && r.err == nil; i++ {
		tag := r.u1()
		switch tag {
		case tagUtf8:
			utf8[i] = string(r.take(r.u2()))
		case tagClass:
			classes[i] = r.u2()
		case 8, 16, 19, 20: // String, MethodType, Module, Package
			r.u2()
		case 15: // MethodHandle
			r.take(3)
		case 3, 4, 9, 10, 11, 12, 17: // Integer, Float, refs, NameAndType, Dynamic
			r.take(4)
		case tagInvokeDynamic:
			r.take(4)
			indy = true
		case tagLong, tagDouble:
			r.take(8)
			i++ // they take two slots
		default:
			return "", nil, fmt.Errorf("unknown constant-pool tag %d at entry %d", tag, i)
		}
	}
	r.u2() // access
	class = strings.ReplaceAll(utf8[classes[r.u2()]], "/", ".")
	r.u2() // super
	r.take(2 * r.u2())
	if r.err != nil {
		return "", nil, r.err
	}
	if !indy {
		return class, nil, nil
	}
	skipMembers(r) // fields
	for m, count := 0, r.u2(); m < count && r.err == nil; m++ {
		r.u2() // access
		name, desc := utf8[r.u2()], utf8[r.u2()]
		for a, attrs := 0, r.u2(); a < attrs && r.err == nil; a++ {
			attr, body := utf8[r.u2()], r.take(r.u4())
			if attr != "Code" || body == nil {
				continue
			}
			found, err := codeRunsIndy(body)
			if err != nil {
				return "", nil, fmt.Errorf("%s.%s%s: %w", class, name, desc, err)
			}
			if found {
				uses = append(uses, Use{Class: class, Method: readableMethod(class, name, desc)})
			}
		}
	}
	return class, uses, r.err
}

func skipMembers(r *reader) {
	for i, count := 0, r.u2(); i < count && r.err == nil; i++ {
		r.take(6) // access, name, descriptor
		for a, attrs := 0, r.u2(); a < attrs && r.err == nil; a++ {
			r.u2()
			r.take(r.u4())
		}
	}
}

// codeRunsIndy walks a Code attribute's instructions (not its bytes: an
// operand may hold 0xba) and says whether one is invokedynamic.
func codeRunsIndy(attr []byte) (bool, error) {
	r := &reader{b: attr}
	r.take(4) // max_stack, max_locals
	code := r.take(r.u4())
	if r.err != nil {
		return false, r.err
	}
	for pc := 0; pc < len(code); {
		op := code[pc]
		if op == opInvokedynamic {
			return true, nil
		}
		n, err := insnLen(code, pc)
		if err != nil {
			return false, err
		}
		pc += n
	}
	return false, nil
}

// insnLen is the length of the instruction at pc, operands included.
func insnLen(code []byte, pc int) (int, error) {
	op := code[pc]
	s4 := func(at int) (int, error) {
		if at+4 > len(code) {
			return 0, fmt.Errorf("truncated switch at %d", pc)
		}
		return int(int32(binary.BigEndian.Uint32(code[at:]))), nil
	}
	switch {
	case op == opTableswitch || op == opLookupswitch:
		at := (pc + 4) &^ 3 // operands start 4-aligned from the code's start
		if op == opTableswitch {
			low, err := s4(at + 4)
			if err != nil {
				return 0, err
			}
			high, err := s4(at + 8)
			if err != nil || high < low {
				return 0, fmt.Errorf("bad tableswitch at %d", pc)
			}
			return at + 12 + 4*(high-low+1) - pc, nil
		}
		pairs, err := s4(at + 4)
		if err != nil || pairs < 0 {
			return 0, fmt.Errorf("bad lookupswitch at %d", pc)
		}
		return at + 8 + 8*pairs - pc, nil
	case op == opWide:
		if pc+1 < len(code) && code[pc+1] == 0x84 { // wide iinc
			return 6, nil
		}
		return 4, nil
	case int(op) < len(insnLens) && insnLens[op] > 0:
		return int(insnLens[op]), nil
	}
	return 0, fmt.Errorf("unknown opcode 0x%02x at %d", op, pc)
}

// insnLens holds the fixed instruction lengths by opcode (0: none).
var insnLens = func() [256]byte {
	var l [256]byte
	set := func(from, to int, n byte) {
		for op := from; op <= to; op++ {
			l[op] = n
		}
	}
	set(0x00, 0x0f, 1) // nop, constants
	l[0x10] = 2        // bipush
	l[0x11] = 3        // sipush
	l[0x12] = 2        // ldc
	set(0x13, 0x14, 3) // ldc_w, ldc2_w
	set(0x15, 0x19, 2) // loads with an index
	set(0x1a, 0x35, 1) // loads _n, array loads
	set(0x36, 0x3a, 2) // stores with an index
	set(0x3b, 0x83, 1) // stores _n, array stores, stack, arithmetic
	l[0x84] = 3        // iinc
	set(0x85, 0x98, 1) // conversions, comparisons
	set(0x99, 0xa8, 3) // branches, goto, jsr
	l[0xa9] = 2        // ret
	set(0xac, 0xb1, 1) // returns
	set(0xb2, 0xb8, 3) // fields, invokevirtual/special/static
	set(0xb9, 0xba, 5) // invokeinterface, invokedynamic
	l[0xbb] = 3        // new
	l[0xbc] = 2        // newarray
	l[0xbd] = 3        // anewarray
	set(0xbe, 0xbf, 1) // arraylength, athrow
	set(0xc0, 0xc1, 3) // checkcast, instanceof
	set(0xc2, 0xc3, 1) // monitorenter, monitorexit
	l[0xc5] = 4        // multianewarray
	set(0xc6, 0xc7, 3) // ifnull, ifnonnull
	set(0xc8, 0xc9, 5) // goto_w, jsr_w
	return l
}()

// readableMethod writes a method as Java source would name it.
func readableMethod(class, name, desc string) string {
	if name == "<clinit>" {
		return "static initialiser"
	}
	if name == "<init>" {
		name = class[strings.LastIndexAny(class, ".$")+1:]
	}
	params := desc
	if i := strings.IndexByte(params, ')'); strings.HasPrefix(params, "(") && i > 0 {
		params = params[1:i]
	}
	var types []string
	for params != "" {
		t, rest := javaType(params)
		types = append(types, t)
		params = rest
	}
	return name + "(" + strings.Join(types, ", ") + ")"
}

// javaType reads one field descriptor off the front of d.
func javaType(d string) (string, string) {
	dims := 0
	for dims < len(d) && d[dims] == '[' {
		dims++
	}
	d = d[dims:]
	if d == "" {
		return "?", ""
	}
	var t string
	switch d[0] {
	case 'L':
		end := strings.IndexByte(d, ';')
		if end < 0 {
			return "?", ""
		}
		t, d = strings.ReplaceAll(d[1:end], "/", "."), d[end+1:]
	default:
		t, d = map[byte]string{'B': "byte", 'C': "char", 'D': "double", 'F': "float", 'I': "int",
			'J': "long", 'S': "short", 'Z': "boolean", 'V': "void"}[d[0]], d[1:]
		if t == "" {
			return "?", ""
		}
	}
	return t + strings.Repeat("[]", dims), d
}
