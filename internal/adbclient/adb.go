// Package adbclient is droidstar's one client of the adb server: device lists,
// shell commands with exit codes, file push, app install, and raw streams
// to device sockets.
//
// It is built on goadb's wire package for the sync protocol's framing, and
// does itself what goadb gets wrong or lacks: host replies are read in
// full (goadb clips them at 255 bytes), requests may be longer than 255
// bytes, push reads adbd's verdict, install exists, services can be opened
// as raw streams, shell commands report their exit code, and dialing is
// plain net.Dialer (goadb's panics on foreign dial errors).
//
// Every operation uses its own connection to the server, so a Client and
// its Devices are safe for concurrent use; a context that ends closes the
// connection under the operation.
package adbclient

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"time"
)

// DefaultPort is the adb server's port when nothing says otherwise.
const DefaultPort = 5037

// Config says where the adb server is and how to start one.
type Config struct {
	// Host is the server's host; "" means localhost.
	Host string
	// Port is the server's port; 0 means DefaultPort.
	Port int
	// ADB is the adb program that starts a local server; "" means "adb"
	// on PATH.
	ADB string
	// Env is added to droidstar's environment when starting the server
	// (tests give it a private HOME and TMPDIR).
	Env []string
}

// ConfigFromEnv finds the server as adb does: the flags (host, port) win;
// what they leave open comes from ADB_SERVER_SOCKET (tcp:HOST:PORT or
// tcp:PORT), then ANDROID_ADB_SERVER_PORT, then localhost:5037. A variable
// that is consulted and malformed is an error, not silently ignored: a
// farm user would otherwise talk to the wrong server.
func ConfigFromEnv(host string, port int, getenv func(string) string) (Config, error) {
	if port < 0 || port > 65535 {
		return Config{}, fmt.Errorf("adb server port %d is not from 1 to 65535", port)
	}
	c := Config{Host: host, Port: port}
	if c.Host != "" && c.Port != 0 {
		return c, nil
	}
	if spec := getenv("ADB_SERVER_SOCKET"); spec != "" {
		h, p, err := parseServerSocket(spec)
		if err != nil {
			return Config{}, err
		}
		if c.Host == "" {
			c.Host = h
		}
		if c.Port == 0 {
			c.Port = p
		}
	}
	if c.Port == 0 {
		if s := getenv("ANDROID_ADB_SERVER_PORT"); s != "" {
			p, err := parsePort(s)
			if err != nil {
				return Config{}, fmt.Errorf("ANDROID_ADB_SERVER_PORT: %w", err)
			}
			c.Port = p
		}
	}
	if c.Host == "" {
		c.Host = "localhost"
	}
	if c.Port == 0 {
		c.Port = DefaultPort
	}
	return c, nil
}

// Client talks to one adb server.
type Client struct {
	cfg  Config
	addr string
}

// New makes a client; it does not connect (see Ensure).
func New(c Config) *Client {
	if c.Host == "" {
		c.Host = "localhost"
	}
	if c.Port == 0 {
		c.Port = DefaultPort
	}
	return &Client{cfg: c, addr: net.JoinHostPort(c.Host, strconv.Itoa(c.Port))}
}

// Addr is the server's address, HOST:PORT, for messages.
func (c *Client) Addr() string { return c.addr }

// Version asks the server for its protocol version (41 for adb 1.0.41).
func (c *Client) Version(ctx context.Context) (int, error) {
	msg, err := c.query(ctx, "host:version")
	if err != nil {
		return 0, err
	}
	v, err := strconv.ParseInt(msg, 16, 32)
	if err != nil {
		return 0, fmt.Errorf("adb server at %s answered host:version with %q: is this an adb server?", c.addr, msg)
	}
	return int(v), nil
}

// Ensure makes sure a server answers, starting a local one when nothing
// listens, as adb itself does on first use.
func (c *Client) Ensure(ctx context.Context) error {
	_, err := c.Version(ctx)
	if err == nil {
		return nil
	}
	var opErr *net.OpError
	if !errors.As(err, &opErr) || opErr.Op != "dial" || ctx.Err() != nil {
		// Something answered, or we were cancelled: starting a server
		// would not help.
		return err
	}
	if !isLocal(c.cfg.Host) {
		return fmt.Errorf("no adb server at %s: %w", c.addr, opErr)
	}
	if err := c.startServer(ctx); err != nil {
		return err
	}
	if _, err := c.Version(ctx); err != nil {
		return fmt.Errorf("started an adb server for %s, but it does not answer: %w", c.addr, err)
	}
	return nil
}

// startServer runs adb start-server, which returns once the daemon
// listens.
func (c *Client) startServer(ctx context.Context) error {
	adb := c.cfg.ADB
	where := ""
	if adb == "" {
		adb = "adb"
	} else {
		where = " at " + adb
	}
	path, err := exec.LookPath(adb)
	if err != nil {
		return fmt.Errorf("no adb server at %s, and no adb program%s to start one: install it (apt-get install adb) or point droidstar at a running server with -H/-P or ADB_SERVER_SOCKET: %w", c.addr, where, err)
	}
	args := []string{"-P", strconv.Itoa(c.cfg.Port), "start-server"}
	if c.cfg.Host != "localhost" {
		args = []string{"-L", "tcp:" + c.addr, "start-server"}
	}
	cmd := exec.CommandContext(ctx, path, args...)
	// The server to start is named on the command line; adb refuses -P
	// together with an ADB_SERVER_SOCKET from the environment.
	cmd.Env = append(withoutServerVars(os.Environ()), c.cfg.Env...)
	// The daemon must not keep our pipes open and hold Wait.
	cmd.WaitDelay = 5 * time.Second
	out, err := cmd.CombinedOutput()
	if err != nil {
		return fmt.Errorf("no adb server at %s, and %s %s failed: %w; it said: %s", c.addr, path, strings.Join(args, " "), err, oneLine(string(out)))
	}
	return nil
}

func withoutServerVars(env []string) []string {
	var out []string
	for _, kv := range env {
		if strings.HasPrefix(kv, "ADB_SERVER_SOCKET=") || strings.HasPrefix(kv, "ANDROID_ADB_SERVER_PORT=") {
			continue
		}
		out = append(out, kv)
	}
	return out
}

// isLocal reports whether a server at host could be started here.
func isLocal(host string) bool {
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// DeviceInfo is one line of adb devices -l.
type DeviceInfo struct {
	Serial string
	// State is "device" when ready, else "offline", "unauthorized",
	// "authorizing", "connecting", "no permissions (...)", ...
	State       string
	Product     string
	Model       string
	Device      string
	TransportID string
	USB         string
}

// Devices lists the devices the server knows, in any state.
func (c *Client) Devices(ctx context.Context) ([]DeviceInfo, error) {
	msg, err := c.query(ctx, "host:devices-l")
	if err != nil {
		return nil, fmt.Errorf("list devices: %w", err)
	}
	return parseDevices(msg), nil
}

// Connect attaches a device that listens on TCP (adb connect ADDR).
func (c *Client) Connect(ctx context.Context, addr string) error {
	msg, err := c.query(ctx, "host:connect:"+addr)
	if err != nil {
		return fmt.Errorf("connect %s: %w", addr, err)
	}
	return parseConnect(addr, msg)
}

// Disconnect detaches a device attached with Connect.
func (c *Client) Disconnect(ctx context.Context, addr string) error {
	if _, err := c.query(ctx, "host:disconnect:"+addr); err != nil {
		return fmt.Errorf("disconnect %s: %w", addr, err)
	}
	return nil
}

// Device is a handle on the device with that serial; it does not check
// that the device exists.
func (c *Client) Device(serial string) *Device {
	return &Device{client: c, serial: serial}
}
