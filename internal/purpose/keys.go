package purpose

// The keys the decoder allows in each map, read from the schema table
// (schema.go) in its order, the order messages list them in. Maps whose
// keys are names the purpose chooses (target.shim, details, the sim's
// latency) are read with no list.
var (
	topKeys         = keysIn(inTop)
	paramKeys       = keysIn("parameters.*")
	targetKeys      = keysIn("target")
	factoryKeys     = keysIn("target.factory")
	listenerKeys    = keysIn("target.listeners[]")
	initKeys        = keysIn("target.init[]")
	disposeKeys     = keysIn("target.dispose")
	fileKeys        = keysIn("files[]")
	jarKeys         = keysIn("jars[]")
	callinKeys      = keysIn("callins[]")
	callbackKeys    = keysIn("callbacks[]")
	detailKeys      = keysIn("details.*[]")
	timeoutKeys     = keysIn("timeouts")
	restrictionKeys = keysIn("restrictions[]")
	backendKinds    = keysIn("backend")
	simKeys         = keysIn("backend.sim")
	jvmKeys         = keysIn("backend.jvm")
	adbKeys         = keysIn("backend.adb")
	literalKeys     = keysIn(inLiteral)
	actionKinds     = keysIn(inAction)
	// actionKeys are the keys of the map under each action that takes one.
	actionKeys = map[string][]string{
		"write":  keysIn("<action>.write"),
		"append": keysIn("<action>.append"),
		"sqlite": keysIn("<action>.sqlite"),
	}
)

// harnessKeys are the top-level keys the harness is sent: the fields a
// harness error may name, whose positions the decoder records.
var harnessKeys = sentKeys(inTop)

// sentKeys lists the keys of the map at in that a purpose file writes and
// the harness is sent.
func sentKeys(in string) []string {
	var keys []string
	for _, k := range schema {
		if k.In == in && k.Wire == Sent {
			keys = append(keys, k.Name)
		}
	}
	return keys
}
