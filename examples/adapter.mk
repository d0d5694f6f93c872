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
#   JVM_JARS     the JVM jars LIB_JARS are dexed from (default: ADAPTER_CP),
#                for the host's resolution check
# and then includes this file. `make` builds them all, `make clean` removes
# them, `make resolve-classpath` compiles the adapter's class files only
# and prints the jars and their JVM class path (`make check-device-purposes`
# at the top resolves the purpose against them and android.jar), or the
# host jars that are missing.
#
# Tools: a JDK, Go (to build ../internal/dexcheck), and android.jar (API 23)
# and dx, which `make -C harness-apk android-tools` provides (from
# ANDROID_HOME or Debian's packages; see harness-apk/README.md).
#
# Dexing. With an Android SDK whose build-tools have d8 (ANDROID_HOME or
# ANDROID_SDK_ROOT), the newest d8 dexes everything (D8=PATH picks
# another): d8 desugars Java 8 lambdas and default and static interface
# methods, so its dex runs on Android 5.0 (API 21) and later. Without one,
# Debian's dx does, for API 21 and later (DX_MIN_SDK; 24 admits default and
# static interface methods, for Android 7.0 and later), after dexcheck has
# refused every input that runs invokedynamic: dx cannot desugar lambdas.
# Raising DX_MIN_SDK to 26 makes dx accept them but does not make them run:
# it writes calls to java.lang.invoke.LambdaMetafactory.metafactory, which
# Android's core library lacks (NoSuchMethodError at the first lambda), in
# dex version 038, which Android 7 refuses to load. So a library built with
# lambdas (Debian's OkHttp 3.13) needs d8, or a version of it compiled for
# Java 7.

EXAMPLES_DIR  := $(patsubst %/,%,$(dir $(lastword $(MAKEFILE_LIST))))
REPO_DIR      := $(abspath $(EXAMPLES_DIR)/..)
HARNESS_DIR   := $(EXAMPLES_DIR)/../harness-apk
ANDROID_TOOLS := $(HARNESS_DIR)/build/android
ANDROID_JAR   ?= $(ANDROID_TOOLS)/android.jar
DX_JAR        ?= $(firstword $(wildcard $(ANDROID_TOOLS)/root/usr/share/java/com.android.dx-*.jar \
	$(ANDROID_TOOLS)/root/usr/lib/android-sdk/build-tools/debian/lib/dx.jar) \
	$(ANDROID_TOOLS)/root/usr/share/java/com.android.dx-10.0.0.jar)
DX_MIN_SDK    ?= 21
ANDROID_SDK   := $(or $(ANDROID_HOME),$(ANDROID_SDK_ROOT))
D8            ?= $(if $(ANDROID_SDK),$(shell ls -d "$(ANDROID_SDK)"/build-tools/*/d8 2>/dev/null | sort -V | tail -n 1))
GO            ?= go
JAVAC         ?= javac
JAR           ?= jar
JVM_JARS      ?= $(ADAPTER_CP)
EMPTY         :=
SPACE         := $(EMPTY) $(EMPTY)

ADAPTER_SRC   := $(shell find adapter/src -name '*.java' 2>/dev/null | LC_ALL=C sort)
ADAPTER_BUILD := adapter/build
ADAPTER_STAMP := $(ADAPTER_BUILD)/classes.stamp

.PHONY: all clean android-tools resolve-classpath
.DEFAULT_GOAL := all

all: $(ADAPTER_JAR) $(LIB_JARS)
	@for j in $(ADAPTER_JAR) $(LIB_JARS); do echo "built $$j"; done

# android.jar and dx, shared with the harness build.
android-tools:
	$(MAKE) -C $(HARNESS_DIR) android-tools

$(ANDROID_JAR):
	$(MAKE) -C $(HARNESS_DIR) android-tools

# dex INPUT (a jar or a classes directory) into OUTPUT, a jar holding
# classes.dex: d8 when there is one, else dexcheck then dx (see the top).
define dex
	@test -n "$(D8)" -o -f "$(DX_JAR)" || { echo "no dx: run 'make -C $(HARNESS_DIR) android-tools' or set D8"; exit 1; }
	@rm -rf $(2).tmp && mkdir -p $(2).tmp $(dir $(2))
	@if [ -n "$(D8)" ]; then \
		echo "d8 $(1) -> $(2) ($(D8))"; \
		"$(D8)" --release --min-api 21 --lib $(abspath $(ANDROID_JAR)) \
			$(foreach j,$(filter-out $(1),$(subst :, ,$(ADAPTER_CP))),--classpath $(j)) \
			--output $(2).tmp $$(if [ -d $(1) ]; then find $(1) -name '*.class' | LC_ALL=C sort; else echo $(1); fi) \
			|| { rm -rf $(2).tmp; exit 1; }; \
	else \
		echo "dx $(1) -> $(2) (--min-sdk-version=$(DX_MIN_SDK))"; \
		( cd $(REPO_DIR) && $(GO) build -o $(abspath $(2).tmp)/dexcheck ./internal/dexcheck ) \
			&& $(2).tmp/dexcheck $(1) \
			&& java -Xmx1g -jar $(DX_JAR) --dex --min-sdk-version=$(DX_MIN_SDK) --output=$(2).tmp/classes.dex $(1) \
			|| { rm -rf $(2).tmp; exit 1; }; \
	fi
	@rm -f $(2) && cd $(2).tmp && $(JAR) cfM $(abspath $(2)) classes.dex
	@rm -rf $(2).tmp
endef

ifneq ($(ADAPTER_JAR),)
$(ADAPTER_STAMP): $(ADAPTER_SRC) $(ANDROID_JAR) $(subst :, ,$(ADAPTER_CP))
	rm -rf $(ADAPTER_BUILD) && mkdir -p $(ADAPTER_BUILD)/classes
	$(JAVAC) -encoding UTF-8 -source 8 -target 8 -Xlint:-options -bootclasspath $(ANDROID_JAR) \
		$(if $(ADAPTER_CP),-classpath $(ADAPTER_CP)) -d $(ADAPTER_BUILD)/classes $(ADAPTER_SRC)
	touch $@

$(ADAPTER_JAR): $(ADAPTER_STAMP)
	$(call dex,$(ADAPTER_BUILD)/classes,$@)
endif

# The jars this Makefile builds, and the host JVM class path they stand for
# (absolute paths): the adapter's class files and JVM_JARS. When a host jar
# they need is missing, only "missing: JAR..." (`make JAR` says what to do).
RESOLVE_JARS  := $(sort $(subst :, ,$(ADAPTER_CP) $(JVM_JARS)))
MISSING_JARS  := $(filter-out $(wildcard $(RESOLVE_JARS)),$(RESOLVE_JARS))

resolve-classpath: $(if $(MISSING_JARS),,$(if $(ADAPTER_JAR),$(ADAPTER_STAMP)))
ifneq ($(MISSING_JARS),)
	@echo "missing: $(MISSING_JARS)"
else
	@echo "jars: $(ADAPTER_JAR) $(LIB_JARS)"
	@echo "classpath: $(subst $(SPACE),:,$(strip $(abspath $(if $(ADAPTER_JAR),$(ADAPTER_BUILD)/classes) $(subst :, ,$(JVM_JARS)))))"
endif

clean:
	rm -rf $(ADAPTER_BUILD) $(ADAPTER_JAR) $(LIB_JARS)
