# examples/adapter.mk: builds the jars an example's purpose loads on a
# device (purpose field jars:). ART loads dex code, not JVM class files, so
# both the example's adapter and any library under test are dexed.
#
# An example's Makefile sets
#   ADAPTER_JAR  the dex jar to build from adapter/src (e.g. adapter/okhttp-adapter.jar)
#   ADAPTER_CP   extra host jars (plain JVM bytecode, ':'-separated) the
#                adapter compiles against, besides android.jar
#   LIB_JARS     dex jars of libraries, each with its own rule that uses
#                $(call dex,INPUT,OUTPUT)
# and then includes this file. `make` builds them all, `make clean` removes them.
#
# Tools: a JDK, and android.jar (API 23) and dx, which `make -C harness-apk
# android-tools` provides (from ANDROID_HOME or Debian's packages; see
# harness-apk/README.md). With an SDK, D8=$ANDROID_HOME/build-tools/VERSION/d8
# uses d8 instead of dx.
#
# dx writes dex for Android 5.0 (API 21) and later (DX_MIN_SDK), but cannot
# desugar Java 8 lambdas: a library compiled with them (OkHttp 3.13) needs a
# target-specific DX_MIN_SDK := 26 (invokedynamic), and its dex then runs on
# Android 8.0 and later only. d8 desugars lambdas for API 21 and later.

EXAMPLES_DIR  := $(patsubst %/,%,$(dir $(lastword $(MAKEFILE_LIST))))
HARNESS_DIR   := $(EXAMPLES_DIR)/../harness-apk
ANDROID_TOOLS := $(HARNESS_DIR)/build/android
ANDROID_JAR   ?= $(ANDROID_TOOLS)/android.jar
DX_JAR        ?= $(firstword $(wildcard $(ANDROID_TOOLS)/root/usr/share/java/com.android.dx-*.jar \
	$(ANDROID_TOOLS)/root/usr/lib/android-sdk/build-tools/debian/lib/dx.jar) \
	$(ANDROID_TOOLS)/root/usr/share/java/com.android.dx-10.0.0.jar)
DX_MIN_SDK    ?= 21
D8            ?=
JAVAC         ?= javac
JAR           ?= jar

ADAPTER_SRC   := $(shell find adapter/src -name '*.java' 2>/dev/null | LC_ALL=C sort)
ADAPTER_BUILD := adapter/build

.PHONY: all clean android-tools
.DEFAULT_GOAL := all

all: $(ADAPTER_JAR) $(LIB_JARS)
	@for j in $(ADAPTER_JAR) $(LIB_JARS); do echo "built $$j"; done

# android.jar and dx, shared with the harness build.
android-tools:
	$(MAKE) -C $(HARNESS_DIR) android-tools

$(ANDROID_JAR):
	$(MAKE) -C $(HARNESS_DIR) android-tools

# dex INPUT (a jar or a classes directory) into OUTPUT, a jar holding classes.dex.
define dex
	@test -n "$(D8)" -o -f "$(DX_JAR)" || { echo "no dx: run 'make -C $(HARNESS_DIR) android-tools' or set D8"; exit 1; }
	rm -rf $(2).tmp && mkdir -p $(2).tmp $(dir $(2))
	if [ -n "$(D8)" ]; then \
		"$(D8)" --release --min-api 21 --lib $(ANDROID_JAR) --output $(2).tmp $(1); \
	else \
		java -Xmx1g -jar $(DX_JAR) --dex --min-sdk-version=$(DX_MIN_SDK) --output=$(2).tmp/classes.dex $(1); \
	fi
	rm -f $(2) && cd $(2).tmp && $(JAR) cfM $(abspath $(2)) classes.dex
	rm -rf $(2).tmp
endef

ifneq ($(ADAPTER_JAR),)
$(ADAPTER_JAR): $(ADAPTER_SRC) $(ANDROID_JAR)
	rm -rf $(ADAPTER_BUILD) && mkdir -p $(ADAPTER_BUILD)/classes
	$(JAVAC) -encoding UTF-8 -source 8 -target 8 -Xlint:-options -bootclasspath $(ANDROID_JAR) \
		$(if $(ADAPTER_CP),-classpath $(ADAPTER_CP)) -d $(ADAPTER_BUILD)/classes $(ADAPTER_SRC)
	$(call dex,$(ADAPTER_BUILD)/classes,$@)
endif

clean:
	rm -rf $(ADAPTER_BUILD) $(ADAPTER_JAR) $(LIB_JARS)
