# frontdoor: `make run` starts a development stack, `make test` runs every test.
SHELL := /bin/bash
SWIFT ?= swift
VAR := $(CURDIR)/var
PORT ?= 8080
DEV_PORT ?= 8081
APT_PACKAGES := libssl-dev libsqlite3-dev libcurl4-openssl-dev libsodium-dev pkg-config nginx fcgiwrap
RELEASE_FLAGS := -c release --static-swift-stdlib

.PHONY: deps build release test run stop clean bench

# Installs the Debian packages the build and the tests need, when root and when missing.
deps:
	@missing=""; for p in $(APT_PACKAGES); do \
	    dpkg-query -W -f='$${Status}' $$p 2>/dev/null | grep -q "ok installed" || missing="$$missing $$p"; \
	done; \
	if [ -n "$$missing" ]; then \
	    if [ "$$(id -u)" = 0 ]; then \
	        echo "installing:$$missing"; \
	        apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $$missing </dev/null; \
	    else \
	        echo "missing Debian packages:$$missing (run as root or: sudo apt-get install$$missing)" >&2; exit 1; \
	    fi; \
	fi

build: deps
	$(SWIFT) build --build-tests

release: deps
	$(SWIFT) build $(RELEASE_FLAGS)

test: build
	@mkdir -p $(VAR)
	@start=$$(date +%s); \
	FRONTDOOR_BIN_DIR="$$($(SWIFT) build --show-bin-path)" FRONTDOOR_ROOT="$(CURDIR)" \
	    $(SWIFT) test --skip-build 2>&1 | tee $(VAR)/test.log; status=$${PIPESTATUS[0]}; \
	echo "make test: $$(( $$(date +%s) - start )) s of tests"; exit $$status

# The development stack: a loopback identity provider on DEV_PORT, nginx + fcgiwrap on PORT.
run: release stop
	@mkdir -p $(VAR)
	@bin="$$($(SWIFT) build $(RELEASE_FLAGS) --show-bin-path)"; \
	"$$bin/frontdoor-dev" config --database $(VAR)/frontdoor.sqlite3 --provider http://127.0.0.1:$(DEV_PORT) \
	    > $(VAR)/config.json && \
	( setsid "$$bin/frontdoor-dev" serve --port $(DEV_PORT) </dev/null >>$(VAR)/dev-provider.log 2>&1 & \
	  echo $$! > $(VAR)/dev-provider.pid ) && \
	scripts/dev-stack start $(VAR) $(PORT) "$$bin" $(VAR)/config.json && \
	"$$bin/frontdoor-dev" usage --port $(PORT) --provider http://127.0.0.1:$(DEV_PORT)

stop:
	@scripts/dev-stack stop $(VAR)
	@if [ -f $(VAR)/dev-provider.pid ]; then kill $$(cat $(VAR)/dev-provider.pid) 2>/dev/null || true; \
	    rm -f $(VAR)/dev-provider.pid; fi

clean: stop
	rm -rf .build $(VAR)

# Per-request cost next to a C hello-world CGI; writes docs/benchmarks.md.
bench: deps
	@command -v wrk >/dev/null || { [ "$$(id -u)" = 0 ] && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq wrk </dev/null; } || true
	scripts/bench
