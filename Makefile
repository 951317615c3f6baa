# frontdoor: `make run` starts a development stack, `make test` runs every test.
SHELL := /bin/bash
SWIFT ?= swift
VAR := $(CURDIR)/var
PORT ?= 8080
DEV_PORT ?= 8081
APT_PACKAGES := libssl-dev libsqlite3-dev libcurl4-openssl-dev libsodium-dev pkg-config nginx fcgiwrap
# A position-dependent executable: the dynamic loader then has 361 relocations to apply instead of
# 37,000 (measured: a refused request's exec 4.5 -> 3.0 ms, peak RSS 7.9 -> 6.5 MiB).
RELEASE_FLAGS := -c release --static-swift-stdlib -Xlinker -no-pie
export RELEASE_FLAGS
# make install DESTDIR=… PREFIX=…: where the files go (see README, "Installing").
PREFIX ?= /usr/local
SYSCONFDIR ?= /etc
LOCALSTATEDIR ?= /var
RUN_USER ?= www-data
ENDPOINTS := signin-google signin-apple signin-email verify-email sign-out delete-account

.PHONY: deps build release test run stop clean bench install

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

test: build release
	@mkdir -p $(VAR)
	@start=$$(date +%s); \
	FRONTDOOR_BIN_DIR="$$($(SWIFT) build --show-bin-path)" FRONTDOOR_ROOT="$(CURDIR)" \
	    $(SWIFT) test --skip-build 2>&1 | tee $(VAR)/test.log; status=$${PIPESTATUS[0]}; \
	tests/release-test.sh "$$($(SWIFT) build $(RELEASE_FLAGS) --show-bin-path)" || status=1; \
	tests/install-test.sh || status=1; \
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

# Copies the release binaries, the nginx files, the fcgiwrap drop-in, an example config and the
# data folder into place (under DESTDIR when staging). Owners need root (or fakeroot).
install:
	@bin="$$($(SWIFT) build $(RELEASE_FLAGS) --show-bin-path)"; \
	for p in $(ENDPOINTS) frontdoor-check; do [ -x "$$bin/$$p" ] || { echo "install: $$bin/$$p missing: run make release" >&2; exit 1; }; done; \
	set -e; d="$(DESTDIR)"; \
	install -d -m 0755 "$$d$(PREFIX)/libexec/frontdoor" "$$d$(PREFIX)/sbin" \
	    "$$d$(SYSCONFDIR)/nginx/sites-available" "$$d$(SYSCONFDIR)/nginx/snippets" "$$d$(SYSCONFDIR)/nginx/conf.d" \
	    "$$d$(SYSCONFDIR)/systemd/system/fcgiwrap.service.d"; \
	for p in $(ENDPOINTS); do install -m 0755 -o root -g root "$$bin/$$p" "$$d$(PREFIX)/libexec/frontdoor/$$p"; done; \
	install -m 0755 -o root -g root "$$bin/frontdoor-check" "$$d$(PREFIX)/sbin/frontdoor-check"; \
	paths="s#/usr/local/libexec/frontdoor#$(PREFIX)/libexec/frontdoor#; s#/etc/frontdoor/#$(SYSCONFDIR)/frontdoor/#; s#/etc/nginx/#$(SYSCONFDIR)/nginx/#"; \
	sed "$$paths" nginx/frontdoor.conf >"$$d$(SYSCONFDIR)/nginx/sites-available/frontdoor"; \
	sed "$$paths" nginx/frontdoor-endpoints.conf >"$$d$(SYSCONFDIR)/nginx/snippets/frontdoor-endpoints.conf"; \
	install -m 0644 nginx/fcgiwrap.conf "$$d$(SYSCONFDIR)/nginx/snippets/frontdoor-fcgiwrap.conf"; \
	install -m 0644 nginx/frontdoor-http.conf "$$d$(SYSCONFDIR)/nginx/conf.d/frontdoor.conf"; \
	chmod 0644 "$$d$(SYSCONFDIR)/nginx/sites-available/frontdoor" "$$d$(SYSCONFDIR)/nginx/snippets/frontdoor-endpoints.conf"; \
	install -m 0644 nginx/fcgiwrap-frontdoor.service.conf "$$d$(SYSCONFDIR)/systemd/system/fcgiwrap.service.d/frontdoor.conf"; \
	install -d -m 0750 -o root -g $(RUN_USER) "$$d$(SYSCONFDIR)/frontdoor" "$$d$(SYSCONFDIR)/frontdoor/secrets"; \
	if [ ! -e "$$d$(SYSCONFDIR)/frontdoor/config.json" ]; then \
	    sed "s#/var/lib/frontdoor/#$(LOCALSTATEDIR)/lib/frontdoor/#" deploy/config.example.json >"$$d$(SYSCONFDIR)/frontdoor/config.json"; \
	    chown root:$(RUN_USER) "$$d$(SYSCONFDIR)/frontdoor/config.json"; chmod 0640 "$$d$(SYSCONFDIR)/frontdoor/config.json"; \
	fi; \
	install -d -m 0750 -o $(RUN_USER) -g $(RUN_USER) "$$d$(LOCALSTATEDIR)/lib/frontdoor"; \
	echo "installed under $${d:-/}: see README, Installing, for the remaining steps"

clean: stop
	rm -rf .build $(VAR)

# Per-request cost next to a C hello-world CGI; writes docs/benchmarks.md.
bench: deps
	@command -v wrk >/dev/null || { [ "$$(id -u)" = 0 ] && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq wrk </dev/null; } || true
	scripts/bench
