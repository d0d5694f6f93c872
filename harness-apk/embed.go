// Package harnessapk embeds the built harness in the droidstar binary: the
// APK that the adb backend installs on devices and the jar that the jvm
// backend runs. Both are committed build outputs of this directory's
// Makefile, byte-identical from build to build (make apk-check jar-check).
package harnessapk

import _ "embed"

// JVMJar is dist/droidstar-harness.jar: the harness core and its JVM layer.
//
//go:embed dist/droidstar-harness.jar
var JVMJar []byte

// APK is dist/droidstar-harness.apk: the harness core and its Android layer,
// installed on devices by the adb backend.
//
//go:embed dist/droidstar-harness.apk
var APK []byte
