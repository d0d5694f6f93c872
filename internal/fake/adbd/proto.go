package adbd

import (
	"encoding/binary"
	"fmt"
	"io"
)

// Message commands of the ADB transport protocol (AOSP adb/adb.h).
const (
	cmdCNXN = 0x4e584e43
	cmdAUTH = 0x48545541
	cmdOPEN = 0x4e45504f
	cmdOKAY = 0x59414b4f
	cmdCLSE = 0x45534c43
	cmdWRTE = 0x45545257
)

const (
	// adbVersion is the newest protocol version the fake speaks: the one
	// after which neither side computes checksums.
	adbVersion = 0x01000001
	// adbVersionMin is the oldest version a host may offer.
	adbVersionMin = 0x01000000
	// maxData is what the fake accepts per WRTE; adbd of the same era
	// offers 256 KiB too.
	maxData = 256 * 1024
	// hostMaxDataFloor guards against a host that announces a tiny or
	// zero maxdata, which would make Write loop forever.
	hostMaxDataFloor = 4096
	// headerLen is the size of a message header on the wire.
	headerLen = 24
	// maxIncoming bounds what a peer may make us allocate for one message.
	maxIncoming = 1024 * 1024
)

// Auth types of an AUTH message; the third, the host's public key, is
// never answered.
const (
	authToken     = 1
	authSignature = 2
)

type message struct {
	cmd, arg0, arg1 uint32
	data            []byte
}

func cmdName(c uint32) string {
	switch c {
	case cmdCNXN:
		return "CNXN"
	case cmdAUTH:
		return "AUTH"
	case cmdOPEN:
		return "OPEN"
	case cmdOKAY:
		return "OKAY"
	case cmdCLSE:
		return "CLSE"
	case cmdWRTE:
		return "WRTE"
	}
	return fmt.Sprintf("0x%08x", c)
}

// checksum is the legacy data_check: the sum of the payload's bytes. Hosts
// since protocol 0x01000001 ignore it, older ones verify it.
func checksum(data []byte) uint32 {
	var s uint32
	for _, b := range data {
		s += uint32(b)
	}
	return s
}

func encode(m message) []byte {
	buf := make([]byte, headerLen+len(m.data))
	binary.LittleEndian.PutUint32(buf[0:], m.cmd)
	binary.LittleEndian.PutUint32(buf[4:], m.arg0)
	binary.LittleEndian.PutUint32(buf[8:], m.arg1)
	binary.LittleEndian.PutUint32(buf[12:], uint32(len(m.data)))
	binary.LittleEndian.PutUint32(buf[16:], checksum(m.data))
	binary.LittleEndian.PutUint32(buf[20:], m.cmd^0xffffffff)
	copy(buf[headerLen:], m.data)
	return buf
}

func readMessage(r io.Reader) (message, error) {
	var h [headerLen]byte
	if _, err := io.ReadFull(r, h[:]); err != nil {
		return message{}, err
	}
	m := message{
		cmd:  binary.LittleEndian.Uint32(h[0:]),
		arg0: binary.LittleEndian.Uint32(h[4:]),
		arg1: binary.LittleEndian.Uint32(h[8:]),
	}
	n := binary.LittleEndian.Uint32(h[12:])
	if magic := binary.LittleEndian.Uint32(h[20:]); magic != m.cmd^0xffffffff {
		return message{}, fmt.Errorf("bad magic 0x%08x for command %s", magic, cmdName(m.cmd))
	}
	if n > maxIncoming {
		return message{}, fmt.Errorf("%s payload of %d bytes is too large", cmdName(m.cmd), n)
	}
	if n > 0 {
		m.data = make([]byte, n)
		if _, err := io.ReadFull(r, m.data); err != nil {
			return message{}, err
		}
	}
	return m, nil
}
