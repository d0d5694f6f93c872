package purpose

// Keys of each map in the schema, in the order the messages list them.
var (
	// harnessKeys are the top-level fields of the harness's configure
	// request (internal/harness.Request).
	harnessKeys     = []string{"name", "class", "target", "setup", "callins", "callbacks", "details", "timeouts", "jars", "adapters"}
	topKeys         = []string{"name", "class", "description", "target", "setup", "files", "permissions", "jars", "adapters", "callins", "callbacks", "details", "timeouts", "bound", "bound_counts", "restrictions", "backend"}
	callinKeys      = []string{"symbol", "call", "on", "args", "do", "result", "error_if"}
	callbackKeys    = []string{"symbol", "from", "error", "returns", "throws", "sleep_ms"}
	timeoutKeys     = []string{"quiescence", "settle", "post_reset"}
	restrictionKeys = []string{"at_most", "of", "first", "followed_by_wait"}
	simKeys         = []string{"model", "format", "latency", "realtime"}
	jvmKeys         = []string{"java", "options"}
	adbKeys         = []string{}
)

// Keys of the harness maps.
var (
	targetKeys   = []string{"new", "factory", "shim", "listeners", "init", "dispose"}
	factoryKeys  = []string{"class", "method", "args"}
	callKeys     = []string{"call", "args"}
	listenerKeys = []string{"type", "register", "name"}
	fileKeys     = []string{"name", "from"}
	literalKeys  = []string{"file", "path", "listener", "target", "context", "constant", "new", "call", "result", "int", "long", "float", "double", "string"}
	actionKinds  = []string{"write", "append", "delete", "touch", "sqlite", "sleep"}
	contentKeys  = []string{"file", "content"}
	sqliteKeys   = []string{"file", "version"}
)

// detailKeys are the fields of a part of a callback's detail.
var detailKeys = []string{"arg", "call", "extra"}
