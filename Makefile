# frontdoor: `make run` starts a development stack, `make test` runs every test.
SHELL := /bin/bash
SWIFT ?= swift
VAR := $(CURDIR)/var
PORT ?= 8080
DEV_PORT ?= 8081
# SQLite and libcurl are built from Debian's source packages by scripts/sqlite-deps and scripts/curl-deps (docs/sqlite.md, docs/speed.md): curl
# fetches it (and scripts/password-list's .deb; pip its wheels, python3 builds the list), gpgv and the keyring check unstable's index when the pin is gone, xz-utils and
# patch unpack it, gcc and make build it. valgrind counts the session check's instructions
# (CheckSchemaCostTests, scripts/request-cost).
APT_PACKAGES := libssl-dev libsodium-dev pkg-config nginx fcgiwrap curl binutils python3 \
    gcc make patch xz-utils gpgv debian-archive-keyring python3-venv chromium chromium-driver python3-pip valgrind \
    dnsmasq-base python3-aiosmtpd openssl ca-certificates nodejs node-acorn
# The servers the PostgreSQL tests start under a folder of their own (scripts/pg-stack): installed
# without the cluster and the pgbouncer service Debian would otherwise create and start.
PG_PACKAGES := postgresql pgbouncer
# A position-dependent executable: the dynamic loader then has 361 relocations to apply instead of
# 37,000 (measured: a refused request's exec 4.5 -> 3.0 ms, peak RSS 7.9 -> 6.5 MiB). And libstdc++
# from GCC's archive: the toolchain's static link line asks for -lstdc++ before the Swift runtime
# members that need it, so a linker script found first in the library path answers that request
# with a group of both archives (a refused request: 2.3 M -> 0.65 M instructions; see
# docs/performance.md). Without the archives the script is not written and libstdc++ stays shared.
STATIC_CXX_DIR := $(CURDIR)/.build/static-libstdcxx
LIBSTDCXX_ARCHIVE := $(shell gcc -print-file-name=libstdc++.a 2>/dev/null)
SWIFT_CORE_ARCHIVE := $(shell d=$$(dirname "$$(readlink -f "$$(command -v swiftc)")" 2>/dev/null); \
    echo "$$d/../lib/swift_static/linux/libswiftCore.a")
# A static executable: no dynamic loader at all (a refused request's exec 1.7 -> 1.3 ms). libcurl,
# which most requests never need, is still dlopen()ed on first use; -lm comes after SQLite's archive.
# Linked by lld with the functions of the common paths first (link/symbol-order.txt, written by
# `make symbol-order`): a process then faults in a few windows of code instead of pages all over
# it (a refused request 1.3 -> 0.9 ms). Without the toolchain's lld, gold links in default order.
# The code starts and ends on 2 MiB boundaries, in the file and in memory: read back in 2 MiB folios
# (frontdoor-check --settle), each piece of it is mapped by one fault (docs/performance.md).
SWIFT_LLD := $(shell d=$$(dirname "$$(readlink -f "$$(command -v swiftc)")" 2>/dev/null); [ -x "$$d/ld.lld" ] && echo yes)
SYMBOL_ORDER := $(CURDIR)/link/symbol-order.txt
RELEASE_FLAGS := -c release --static-swift-stdlib -Xswiftc -static-executable -Xlinker -no-pie \
    -Xlinker -L$(STATIC_CXX_DIR) -Xlinker -lm \
    $(if $(SWIFT_LLD),-Xswiftc -use-ld=lld -Xlinker --symbol-ordering-file=$(SYMBOL_ORDER) -Xlinker --no-warn-symbol-ordering \
    -Xlinker -z -Xlinker max-page-size=0x200000 -Xlinker -z -Xlinker separate-code)
export RELEASE_FLAGS
# make install DESTDIR=… PREFIX=…: where the files go (see README, "Installing").
PREFIX ?= /usr/local
SYSCONFDIR ?= /etc
LOCALSTATEDIR ?= /var
RUN_USER ?= www-data
# The web kit (kits/web, docs/clients.md): what make install puts under share/frontdoor/kit.
KIT_FILES := frontdoor.js signin.html signin.js signin.css typos.json $(addprefix lang/,$(addsuffix .json,en fr es de pt ar))
ENDPOINTS := signin-google signin-apple signin-email verify-email sign-out delete-account session account apple-notify google-risc signin-passkey passkey kit-return

.PHONY: deps build kit-unit client-venv kit-venv openapi-venv peer-venv bench-peer release static-libstdcxx release-flags test test-postgres run stop clean bench install fuzz fuzz-seeds sanitize load crash symbol-order \
    wal-stress
# Everything the tests' processes wrote, and the secrets the tests used: scanned after make test.
LOG_DIR := $(VAR)/test-logs
FUZZ_SECONDS ?= 60

# Installs the Debian packages the build and the tests need, when root and when missing, and
# builds the SQLite frontdoor links (.build/sqlite/current) and the list of common passwords
# (.build/passwords/current, docs/security.md); each reused until its pin or script changes.
# PostgreSQL: postgresql-common first, whose createcluster.conf is then told not to make the
# `main` cluster; the servers' packages after it, with service starts refused for that one
# install (policy-rc.d, unless the machine has its own), so no PostgreSQL or pgbouncer is left running.
deps:
	@missing=""; for p in $(APT_PACKAGES) $(PG_PACKAGES); do \
	    dpkg-query -W -f='$${Status}' $$p 2>/dev/null | grep -q "ok installed" || missing="$$missing $$p"; \
	done; \
	if [ -n "$$missing" ]; then \
	    if [ "$$(id -u)" = 0 ]; then \
	        echo "installing:$$missing"; \
	        apt-get update -qq || exit 1; \
	        apt_install() { DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$$@" </dev/null; }; \
	        plain=""; servers=""; for p in $$missing; do \
	            case " $(PG_PACKAGES) " in *" $$p "*) servers="$$servers $$p" ;; *) plain="$$plain $$p" ;; esac; \
	        done; \
	        if [ -n "$$plain" ]; then apt_install $$plain || exit 1; fi; \
	        if [ -n "$$servers" ]; then \
	            apt_install postgresql-common || exit 1; \
	            pg_conftool /etc/postgresql-common/createcluster.conf set create_main_cluster false || exit 1; \
	            policy=""; if [ ! -e /usr/sbin/policy-rc.d ]; then \
	                policy=/usr/sbin/policy-rc.d; printf '#!/bin/sh\nexit 101\n' >$$policy; chmod 755 $$policy; \
	            fi; \
	            apt_install $$servers; status=$$?; [ -z "$$policy" ] || rm -f $$policy; [ $$status = 0 ] || exit 1; \
	        fi; \
	    else \
	        echo "missing Debian packages:$$missing (run as root or: sudo apt-get install$$missing)" >&2; exit 1; \
	    fi; \
	fi
	@scripts/sqlite-deps
	@scripts/curl-deps
	@scripts/password-list

build: deps kit-venv openapi-venv client-venv
	$(SWIFT) build --build-tests

# The browser tests' Python (KitBrowserTests): Debian's python3 in a venv under .build, with
# tests/browser/requirements.txt's pinned packages from PyPI; remade when that file changes.
KIT_VENV := $(CURDIR)/.build/kit-venv
kit-venv: $(KIT_VENV)/installed
$(KIT_VENV)/installed: tests/browser/requirements.txt
	@rm -rf $(KIT_VENV) && mkdir -p $(CURDIR)/.build
	/usr/bin/python3 -m venv $(KIT_VENV)
	$(KIT_VENV)/bin/pip install --quiet --disable-pip-version-check --ignore-requires-python \
	    -r tests/browser/requirements.txt
	@touch $@

# The API description's tests' Python (OpenAPIFuzzTests, OpenAPIDocsTests): Debian's python3 in a
# venv under .build, with schemathesis, openapi-spec-validator and what they need at the exact
# versions of openapi/requirements.txt, from PyPI (as root or not); remade when that file changes.
# The tests then need no network.
OPENAPI_VENV := $(CURDIR)/.build/openapi-venv
openapi-venv: $(OPENAPI_VENV)/installed
$(OPENAPI_VENV)/installed: openapi/requirements.txt
	@rm -rf $(OPENAPI_VENV) && mkdir -p $(CURDIR)/.build
	/usr/bin/python3 -m venv $(OPENAPI_VENV)
	$(OPENAPI_VENV)/bin/pip install --quiet --disable-pip-version-check -r openapi/requirements.txt
	@touch $@

# The generated-client tour's venv (openapi/client): openapi-python-client at exact versions.
CLIENT_VENV := $(CURDIR)/.build/client-venv
client-venv: $(CLIENT_VENV)/installed
$(CLIENT_VENV)/installed: openapi/client/requirements.txt
	@rm -rf $(CLIENT_VENV) && mkdir -p $(CURDIR)/.build
	/usr/bin/python3 -m venv $(CLIENT_VENV)
	$(CLIENT_VENV)/bin/pip install --quiet --disable-pip-version-check -r openapi/client/requirements.txt
	@touch $@

release: deps static-libstdcxx
	@# SwiftPM does not see the order file as an input: binaries older than it are removed, so relinked.
	@bin="$$($(SWIFT) build $(RELEASE_FLAGS) --show-bin-path)"; [ -d "$$bin" ] && [ -f "$(SYMBOL_ORDER)" ] && \
	    find "$$bin/" -maxdepth 1 -type f -executable ! -newer "$(SYMBOL_ORDER)" -delete; true
	$(SWIFT) build $(RELEASE_FLAGS)

static-libstdcxx:
	@mkdir -p $(STATIC_CXX_DIR)
	@if [ -f "$(LIBSTDCXX_ARCHIVE)" ] && [ -f "$(SWIFT_CORE_ARCHIVE)" ]; then \
	    printf 'GROUP ( %s %s )\n' "$(LIBSTDCXX_ARCHIVE)" "$$(readlink -f $(SWIFT_CORE_ARCHIVE))" \
	        >$(STATIC_CXX_DIR)/libstdc++.so; \
	else \
	    rm -f $(STATIC_CXX_DIR)/libstdc++.so; echo "release: libstdc++ stays shared (no static archive found)"; \
	fi

release-flags:
	@echo $(RELEASE_FLAGS)

# Suites about the SQLite file itself, run on the SQLite pass only (the one list; make test's
# PostgreSQL pass skips them, and so should a focused FRONTDOOR_TEST_STORE=postgres run). Why each:
#   WALStressTests           writers and checkpoints SIGKILLed on one WAL file
#   BackupTests, RestoreTests  the SQLite snapshot backup and the door a restore of it closes
#                            (PostgreSQL's are its own: base backups and WAL archiving, docs/scaling.md)
#   StoreOwnershipTests      the SQLite file's and its folder's owners and modes
#   SessionFileTests, CheckSchemaCostTests   SQLite's session file beside the store: its two
#                            commits, and what nginx's check parses (docs/sqlite.md)
#   SecurityReviewTests/aDeletionAnswersWhileAReaderHoldsTheWAL…, …/aCheckpointReadersKeptFrom…
#                            a deletion's WAL emptied for secure_delete, a checkpoint owed and paid
#   SessionCheckTests/withinTheIntervalACheckWritesNothing   measured by the WAL file's size
#   SessionCheckTests/aSessionWithoutItsAccountIs401   foreign keys off, as the sqlite3 shell has
#                            them (PostgreSQL enforces them always: the row cannot exist)
#   DeletionTests/everythingOfThePersonGoesAndLeavesNoTraceInTheFile   the SQLite file's bytes
#   DeletionTests/theAuditKeyCanComeFromAFileTheConfigNames   the key made beside the SQLite file
#                            when none is named (postgresUrl requires deletion.auditKeyFile)
#   AppleRelayCleanupTests/theCachedAccessTokenIsSealedUnderTheServerKey   the file's bytes
#   SelfCheckTests/aClosedDoorIsReportedAndTheStoreIsNotOpened   the door a restore of the file closes
#   AccountViewCheckTests/…   the session file's account views (PostgreSQL answers in one statement)
SQLITE_PASS_ONLY := WALStressTests BackupTests RestoreTests RestoreSecurityTests StoreOwnershipTests \
    SessionFileTests CheckSchemaCostTests \
    AccountViewCheckTests/thePhonesCheckReadsTheSessionFileAloneOnceItHasTheView \
    AccountViewCheckTests/aChangeKilledBetweenItsCommitsLeavesTheStoresTruth \
    AccountViewCheckTests/aViewIsNeverBuiltFromWhatAWriterIsChanging AccountViewCheckTests/aWriterAfterABuildTakesTheViewAway \
    SecurityReviewTests/aDeletionAnswersWhileAReaderHoldsTheWALAndCheckpointsOnceItIsGone \
    SecurityReviewTests/aCheckpointReadersKeptFromFinishingIsPaidByTheNextRequest \
    SessionCheckTests/withinTheIntervalACheckWritesNothing SessionCheckTests/aSessionWithoutItsAccountIs401 \
    DeletionTests/everythingOfThePersonGoesAndLeavesNoTraceInTheFile DeletionTests/theAuditKeyCanComeFromAFileTheConfigNames \
    AppleRelayCleanupTests/theCachedAccessTokenIsSealedUnderTheServerKey \
    SelfCheckTests/aClosedDoorIsReportedAndTheStoreIsNotOpened
# Suites that choose PostgreSQL themselves, whichever pass runs them: run once, on the first pass.
POSTGRES_ALWAYS := TwoBoxTests PostgresRestartTests PostgresRenewalTests CopyToPostgresTests PostgresEraseTests \
    HostilePostgresTests
# The PostgreSQL pass: the endpoint, concurrency and crash suites again, each test's store a
# database of its own on the PostgreSQL that make test starts (Tests/EndpointTests/TestStore.swift).
POSTGRES_PASS := EndpointTests
POSTGRES_PASS_SKIPS := $(foreach suite,$(SQLITE_PASS_ONLY) $(POSTGRES_ALWAYS),--skip '\.$(suite)\b')
# The PostgreSQL pass alone, against servers of its own: make test-postgres [FILTER=Suite].
FILTER ?= $(POSTGRES_PASS)

# Two passes: every suite on SQLite, then the endpoint suites on PostgreSQL (docs/testing.md). The
# PostgreSQL and pgbouncer they meet (scripts/pg-stack) are started here and stopped on every exit;
# their logs join the scanned record. Every test reaches the checkout (its binaries, scripts and
# fixtures) through a folder only root can enter, as a clone in root's home is: whatever the tests
# run as another user must not need the checkout, wherever it was cloned (docs/testing.md).
test: build release
	@mkdir -p $(VAR) && rm -rf $(LOG_DIR) && mkdir -p $(LOG_DIR)
	@start=$$(date +%s); status=0; \
	node scripts/kit-names kits/web/frontdoor.js kits/web/signin.js || status=1; \
	node --test tests/kit-unit/*.test.mjs >$(VAR)/kit-unit.log 2>&1 || { cat $(VAR)/kit-unit.log; status=1; }; \
	grep -E '^# (tests|pass|fail) ' $(VAR)/kit-unit.log; \
	pg=$$(mktemp -d /tmp/frontdoor-pg-XXXXXX); private=$$(mktemp -d /tmp/frontdoor-private-XXXXXX); \
	trap 'scripts/pg-stack stop "$$pg" >/dev/null 2>&1; rm -rf "$$pg" "$$private"' EXIT; \
	real=$$(pwd -P); here=$$private/checkout; ln -s "$$real" "$$here"; \
	FRONTDOOR_PG_FSYNC=off scripts/pg-stack start "$$pg" >/dev/null || exit 1; \
	bin="$$($(SWIFT) build --show-bin-path)"; bin="$$here/$${bin#$$real/}"; \
	release="$$($(SWIFT) build $(RELEASE_FLAGS) --show-bin-path)"; release="$$here/$${release#$$real/}"; \
	FRONTDOOR_BIN_DIR="$$bin" FRONTDOOR_ROOT="$$here" FRONTDOOR_LOG_DIR=$(LOG_DIR) \
	    FRONTDOOR_PG_DIR="$$pg" $(SWIFT) test --skip-build 2>&1 | tee $(VAR)/test.log; \
	[ $${PIPESTATUS[0]} = 0 ] || status=1; \
	echo "make test: SQLite pass $$(( $$(date +%s) - start )) s"; pass=$$(date +%s); \
	FRONTDOOR_TEST_STORE=postgres FRONTDOOR_BIN_DIR="$$bin" FRONTDOOR_ROOT="$$here" FRONTDOOR_LOG_DIR=$(LOG_DIR) \
	    FRONTDOOR_PG_DIR="$$pg" $(SWIFT) test --skip-build --filter '$(POSTGRES_PASS)' \
	    $(POSTGRES_PASS_SKIPS) 2>&1 | tee $(VAR)/test-postgres.log; \
	[ $${PIPESTATUS[0]} = 0 ] || status=1; \
	echo "make test: PostgreSQL pass $$(( $$(date +%s) - pass )) s"; \
	cat "$$pg/postgres.log" "$$pg/pgbouncer.log" >>$(LOG_DIR)/stderr.log 2>/dev/null; \
	scripts/check-logs $(LOG_DIR) || status=1; \
	tests/release-test.sh "$$release" || status=1; \
	FRONTDOOR_PG_DIR="$$pg" tests/box-test.sh "$$release" || status=1; \
	tests/sqlite-deps-test.sh || status=1; \
	FRONTDOOR_RELEASE_BIN="$$release" "$$here/tests/install-test.sh" || status=1; \
	echo "make test: $$(( $$(date +%s) - start )) s of tests"; exit $$status

# The web kit's JavaScript without a browser: no name used undefined, no import unused
# (scripts/kit-names, on acorn), and the module's logic on Node's own test runner.
kit-unit:
	@node scripts/kit-names kits/web/frontdoor.js kits/web/signin.js
	@node --test tests/kit-unit/*.test.mjs 2>&1 | tail -9

# make test's PostgreSQL pass alone (FILTER narrows it: make test-postgres FILTER=CrashSafetyTests).
test-postgres: build
	@mkdir -p $(LOG_DIR); pg=$$(mktemp -d /tmp/frontdoor-pg-XXXXXX); \
	trap 'scripts/pg-stack stop "$$pg" >/dev/null 2>&1; rm -rf "$$pg"' EXIT; \
	FRONTDOOR_PG_FSYNC=off scripts/pg-stack start "$$pg" >/dev/null || exit 1; \
	FRONTDOOR_TEST_STORE=postgres FRONTDOOR_BIN_DIR="$$($(SWIFT) build --show-bin-path)" FRONTDOOR_ROOT="$(CURDIR)" \
	    FRONTDOOR_LOG_DIR=$(LOG_DIR) FRONTDOOR_PG_DIR="$$pg" $(SWIFT) test --skip-build --filter '$(FILTER)' $(POSTGRES_PASS_SKIPS)

# The development stack: a loopback identity provider on DEV_PORT, nginx + fcgiwrap on PORT.
# BOX=yes (root): the release binaries in scripts/box instead, an IPv6-only namespace where every
# outside service is reached by its real name over TLS, with the production config (docs/testing.md).
# STORE=postgres: the store on a local PostgreSQL and pgbouncer under var/pg (scripts/pg-stack),
# reached through pgbouncer as the stack's user; it prints how to point a second stack at it.
STORE ?= sqlite
PG_VAR := $(VAR)/pg
run: release stop
	@mkdir -p $(VAR)
	@bin="$$($(SWIFT) build $(RELEASE_FLAGS) --show-bin-path)"; \
	if [ "$(BOX)" = yes ]; then scripts/box run $(VAR)/box "$$bin"; exit $$?; fi; \
	store=""; \
	if [ "$(STORE)" = postgres ]; then \
	    user=$$(id -un); if [ "$$(id -u)" = 0 ]; then \
	        user=$${FRONTDOOR_STACK_USER:-$$(id -u www-data >/dev/null 2>&1 && echo www-data || echo nobody)}; fi; \
	    FRONTDOOR_PG_PEERS="$$user" scripts/pg-stack start $(PG_VAR) >/dev/null || exit 1; \
	    [ -s $(VAR)/audit-key ] || (umask 077; head -c 32 /dev/urandom | od -An -tx1 | tr -d ' \n' >$(VAR)/audit-key); \
	    store="--postgres-url postgresql://$$user@/frontdoor?host=$(PG_VAR)&port=6432 --ledger $(VAR)/deletions.ledger --audit-key $(VAR)/audit-key"; \
	elif [ "$(STORE)" != sqlite ]; then echo "run: STORE is sqlite or postgres" >&2; exit 2; fi; \
	"$$bin/frontdoor-dev" config --database $(VAR)/frontdoor.sqlite3 --provider http://127.0.0.1:$(DEV_PORT) \
	    --events-secret $(VAR)/events-secret --site http://127.0.0.1:$(PORT) \
	    --password-list $(CURDIR)/.build/passwords/current/common-passwords $$store > $(VAR)/config.json && chmod 600 $(VAR)/config.json && \
	mkdir -p $(VAR)/well-known && \
	"$$bin/frontdoor-check" --print-association-files --config $(VAR)/config.json --out $(VAR)/well-known >/dev/null && \
	( setsid "$$bin/frontdoor-dev" serve --port $(DEV_PORT) --events-secret $(VAR)/events-secret \
	    </dev/null >>$(VAR)/dev-provider.log 2>&1 & \
	  echo $$! > $(VAR)/dev-provider.pid ) && \
	for _ in $$(seq 100); do (exec 3<>/dev/tcp/127.0.0.1/$(DEV_PORT)) 2>/dev/null && break; sleep 0.05; done && \
	scripts/dev-stack start $(VAR) $(PORT) "$$bin" $(VAR)/config.json && \
	"$$bin/frontdoor-dev" usage --port $(PORT) --provider http://127.0.0.1:$(DEV_PORT) && \
	if [ "$(STORE)" = postgres ]; then \
	    echo; echo "The store is PostgreSQL 15 behind pgbouncer in $(PG_VAR) (make stop stops them; the data stays)."; \
	    echo "A second stack (a second box) on the same store: its own folder, port and pgbouncer, the same audit key:"; \
	    echo "  mkdir -p /tmp/box-b/pgbouncer && FRONTDOOR_PG_PEERS=$$user scripts/pg-stack bouncer /tmp/box-b/pgbouncer $(PG_VAR)"; \
	    echo "  sed -e 's#host=$(PG_VAR)#host=/tmp/box-b/pgbouncer#' -e 's#$(VAR)/deletions.ledger#/tmp/box-b/deletions.ledger#' \\"; \
	    echo "      $(VAR)/config.json >/tmp/box-b/config.json"; \
	    echo "  scripts/dev-stack start /tmp/box-b 8090 $$bin /tmp/box-b/config.json"; \
	    echo "  curl -H \"Authorization: Bearer <a session from :$(PORT)>\" http://127.0.0.1:8090/auth/session   # the same person"; \
	    echo "Stop it with scripts/dev-stack stop /tmp/box-b and scripts/pg-stack stop /tmp/box-b/pgbouncer."; \
	fi

stop:
	@scripts/dev-stack stop $(VAR)
	@if [ -d $(VAR)/box/run ]; then scripts/box stop $(VAR)/box; fi
	@if [ -f $(VAR)/dev-provider.pid ]; then kill $$(cat $(VAR)/dev-provider.pid) 2>/dev/null || true; \
	    rm -f $(VAR)/dev-provider.pid; fi
	@if [ -d $(PG_VAR) ]; then scripts/pg-stack stop $(PG_VAR); fi

# Copies the release binaries, the list of common passwords (PREFIX/share/frontdoor, where the
# programs look for it: docs/security.md), the API description nginx serves, the nginx files, the fcgiwrap drop-in and the checks' own fcgiwrap
# units, an example config and the data folder into place (under DESTDIR when staging), makes
# the install's proof for protected routes once (kept on reinstall), and writes the passkey
# association files nginx serves from the config's passkeys section (none without it; a config
# that does not load leaves them as they were, and says so). Owners need root (or fakeroot).
install:
	@bin="$$($(SWIFT) build $(RELEASE_FLAGS) --show-bin-path)"; \
	for p in $(ENDPOINTS) frontdoor-check frontdoor-admin; do [ -x "$$bin/$$p" ] || { echo "install: $$bin/$$p missing: run make release" >&2; exit 1; }; done; \
	list=.build/passwords/current/common-passwords; \
	[ -f "$$list" ] || { echo "install: $$list missing: run make deps" >&2; exit 1; }; \
	set -e; d="$(DESTDIR)"; \
	install -d -m 0755 "$$d$(PREFIX)/libexec/frontdoor" "$$d$(PREFIX)/sbin" "$$d$(PREFIX)/share/frontdoor" \
	    "$$d$(SYSCONFDIR)/nginx/sites-available" "$$d$(SYSCONFDIR)/nginx/snippets" "$$d$(SYSCONFDIR)/nginx/conf.d" \
	    "$$d$(SYSCONFDIR)/systemd/system/fcgiwrap.service.d"; \
	install -m 0644 -o root -g root openapi/openapi.json "$$d$(PREFIX)/share/frontdoor/openapi.json"; \
	for p in $(ENDPOINTS); do install -m 0755 -o root -g root "$$bin/$$p" "$$d$(PREFIX)/libexec/frontdoor/$$p"; done; \
	install -m 0755 -o root -g root "$$bin/frontdoor-check" "$$d$(PREFIX)/sbin/frontdoor-check"; \
	install -m 0755 -o root -g root "$$bin/frontdoor-admin" "$$d$(PREFIX)/sbin/frontdoor-admin"; \
	install -m 0644 -o root -g root "$$list" "$$d$(PREFIX)/share/frontdoor/common-passwords"; \
	paths="s#/usr/local/libexec/frontdoor#$(PREFIX)/libexec/frontdoor#; s#/usr/local/sbin/#$(PREFIX)/sbin/#; s#/usr/local/share/frontdoor/#$(PREFIX)/share/frontdoor/#; s#/etc/frontdoor/#$(SYSCONFDIR)/frontdoor/#; s#/etc/nginx/#$(SYSCONFDIR)/nginx/#"; \
	sed "$$paths" nginx/frontdoor.conf >"$$d$(SYSCONFDIR)/nginx/sites-available/frontdoor"; \
	sed "$$paths" nginx/frontdoor-endpoints.conf >"$$d$(SYSCONFDIR)/nginx/snippets/frontdoor-endpoints.conf"; \
	install -m 0644 nginx/fcgiwrap.conf "$$d$(SYSCONFDIR)/nginx/snippets/frontdoor-fcgiwrap.conf"; \
	sed "$$paths" nginx/frontdoor-protect.conf >"$$d$(SYSCONFDIR)/nginx/snippets/frontdoor-protect.conf"; \
	install -m 0644 nginx/frontdoor-http.conf "$$d$(SYSCONFDIR)/nginx/conf.d/frontdoor.conf"; \
	chmod 0644 "$$d$(SYSCONFDIR)/nginx/sites-available/frontdoor" "$$d$(SYSCONFDIR)/nginx/snippets/frontdoor-endpoints.conf" \
	    "$$d$(SYSCONFDIR)/nginx/snippets/frontdoor-protect.conf"; \
	sed "$$paths" nginx/fcgiwrap-frontdoor.service.conf >"$$d$(SYSCONFDIR)/systemd/system/fcgiwrap.service.d/frontdoor.conf"; \
	chmod 0644 "$$d$(SYSCONFDIR)/systemd/system/fcgiwrap.service.d/frontdoor.conf"; \
	units="$$paths; s#www-data#$(RUN_USER)#g"; \
	for unit in frontdoor-checks.socket frontdoor-checks.service; do \
	    sed "$$units" nginx/$$unit >"$$d$(SYSCONFDIR)/systemd/system/$$unit"; chmod 0644 "$$d$(SYSCONFDIR)/systemd/system/$$unit"; \
	done; \
	install -d -m 0750 -o root -g $(RUN_USER) "$$d$(SYSCONFDIR)/frontdoor" "$$d$(SYSCONFDIR)/frontdoor/secrets"; \
	proof="$$d$(SYSCONFDIR)/frontdoor/secrets/app-proof"; \
	if [ ! -s "$$proof" ]; then \
	    (umask 077; head -c 32 /dev/urandom | base64 | tr '+/' '-_' | tr -d '=\n' >"$$proof"; echo >>"$$proof"); \
	fi; \
	chown root:$(RUN_USER) "$$proof"; chmod 0640 "$$proof"; \
	secret=$$(head -n 1 "$$proof"); \
	printf '%s' "$$secret" | grep -Eqx '[A-Za-z0-9_-]{32,256}' || { echo "install: $$proof must hold 32 or more base64url characters" >&2; exit 1; }; \
	(umask 077; printf '%s\n%s\n%s\n' "# Made by make install from $(SYSCONFDIR)/frontdoor/secrets/app-proof: the proof the app checks. Root only." \
	    "proxy_set_header X-Frontdoor-Proof \"$$secret\";" "fastcgi_param HTTP_X_FRONTDOOR_PROOF \"$$secret\";" \
	    >"$$d$(SYSCONFDIR)/nginx/frontdoor-proof.conf"); \
	chown root:root "$$d$(SYSCONFDIR)/nginx/frontdoor-proof.conf"; chmod 0600 "$$d$(SYSCONFDIR)/nginx/frontdoor-proof.conf"; \
	if [ ! -e "$$d$(SYSCONFDIR)/frontdoor/config.json" ]; then \
	    sed "s#/var/lib/frontdoor/#$(LOCALSTATEDIR)/lib/frontdoor/#" deploy/config.example.json >"$$d$(SYSCONFDIR)/frontdoor/config.json"; \
	    chown root:$(RUN_USER) "$$d$(SYSCONFDIR)/frontdoor/config.json"; chmod 0640 "$$d$(SYSCONFDIR)/frontdoor/config.json"; \
	fi; \
	install -d -m 0750 -o $(RUN_USER) -g $(RUN_USER) "$$d$(LOCALSTATEDIR)/lib/frontdoor"; \
	kit="$$d$(PREFIX)/share/frontdoor/kit"; install -d -m 0755 -o root -g root "$$kit" "$$kit/lang"; \
	for f in $(KIT_FILES); do install -m 0644 -o root -g root "kits/web/$$f" "$$kit/$$f"; \
	    gzip -9 -n -c "kits/web/$$f" >"$$kit/$$f.gz" && chown root:root "$$kit/$$f.gz" && chmod 0644 "$$kit/$$f.gz" \
	        && touch -r "$$kit/$$f" "$$kit/$$f.gz" || exit 1; done; \
	kitconf="$$d$(SYSCONFDIR)/frontdoor/kit"; install -d -m 0755 -o root -g root "$$kitconf"; \
	if ! out=$$("$$bin/frontdoor-check" --print-kit-files --config "$$d$(SYSCONFDIR)/frontdoor/config.json" --out "$$kitconf"); then \
	    echo "install: the web kit's files name no provider: $$out" >&2; \
	fi; \
	sed -i "s#$$d$(SYSCONFDIR)/frontdoor/config.json#$(SYSCONFDIR)/frontdoor/config.json#" "$$kitconf/headers.conf"; \
	wk="$$d$(SYSCONFDIR)/frontdoor/well-known"; install -d -m 0755 -o root -g root "$$wk"; \
	if ! out=$$("$$bin/frontdoor-check" --print-association-files --config "$$d$(SYSCONFDIR)/frontdoor/config.json" --out "$$wk"); then \
	    echo "install: the passkey association files were not written: $$out" >&2; \
	fi; \
	echo "installed under $${d:-/}: see README, Installing, for the remaining steps"

clean: stop
	rm -rf .build $(VAR)

# Per-request cost next to a C hello-world CGI, and next to the peer (django-allauth under
# gunicorn, bench/peer); writes docs/benchmarks.md. The peer's packages come from PyPI here, once
# (peer-venv); the run itself is offline, and leaves the peer out if they could not be installed.
bench: deps
	@command -v wrk >/dev/null || { [ "$$(id -u)" = 0 ] && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq wrk </dev/null; } || true
	@$(MAKE) -s peer-venv || echo "bench: the peer's packages could not be installed: its rows are left out" >&2
	scripts/bench

# A short check that the peer works behind the benchmark's stack (one round of 2 s of each of its
# rows, printed; docs/benchmarks.md untouched). Not part of make test: the peer is a benchmark.
bench-peer: deps peer-venv
	@command -v wrk >/dev/null || { [ "$$(id -u)" = 0 ] && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq wrk </dev/null; } || true
	BENCH_ONLY=peer BENCH_ROUNDS=1 BENCH_SECONDS=2 scripts/bench

# The peer's Python packages (bench/peer/requirements.txt, pinned with their hashes) in a venv of
# Debian's python3 under var/; remade when that file changes.
PEER_VENV := $(VAR)/peer-venv
peer-venv: $(PEER_VENV)/installed
$(PEER_VENV)/installed: bench/peer/requirements.txt
	@rm -rf $(PEER_VENV) && mkdir -p $(VAR)
	/usr/bin/python3 -m venv $(PEER_VENV)
	$(PEER_VENV)/bin/pip install --quiet --disable-pip-version-check --require-hashes -r bench/peer/requirements.txt
	@touch $@

# Rewrites link/symbol-order.txt from callgrind runs of the common paths (commit the result).
symbol-order: release
	@command -v valgrind >/dev/null || { [ "$$(id -u)" = 0 ] && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq valgrind </dev/null; } || true
	scripts/symbol-order

# Hostile input and faults (README, "Hostile input and faults").
# libFuzzer on the token, key-set, CGI, CBOR and provider-event parsers, FUZZ_SECONDS (60) each; crashes in var/fuzz/crashes/.
fuzz: deps
	FUZZ_SECONDS=$(FUZZ_SECONDS) scripts/fuzz

# Rewrites the seed corpus in Fuzz/corpus/ (tokens minted with real signatures).
fuzz-seeds: build
	FRONTDOOR_WRITE_FUZZ_SEEDS=1 $(SWIFT) test --skip-build --filter FuzzReplayTests.writeSeedsWhenAsked

# The whole suite, programs included, under AddressSanitizer; the unit tests under ThreadSanitizer.
sanitize: deps
	@mkdir -p $(VAR); start=$$(date +%s); \
	rm -rf $(VAR)/sanitize-logs && mkdir -p $(VAR)/sanitize-logs; \
	$(SWIFT) build --build-tests --sanitize=address --scratch-path .build/asan && \
	FRONTDOOR_BIN_DIR="$$($(SWIFT) build --sanitize=address --scratch-path .build/asan --show-bin-path)" \
	    FRONTDOOR_ROOT="$(CURDIR)" FRONTDOOR_LOG_DIR=$(VAR)/sanitize-logs $(SWIFT) test --skip-build \
	    --sanitize=address --scratch-path .build/asan --disable-xctest \
	    2>&1 | tee $(VAR)/sanitize-address.log; status=$${PIPESTATUS[0]}; \
	if grep -l "Sanitizer" $(VAR)/sanitize-logs/stderr.log; then echo "sanitize: a program reported" >&2; status=1; fi; \
	echo "sanitize: address: $$(( $$(date +%s) - start )) s"; start=$$(date +%s); \
	$(SWIFT) build --build-tests --sanitize=thread --scratch-path .build/tsan && \
	$(SWIFT) test --skip-build --sanitize=thread --scratch-path .build/tsan --disable-xctest --filter SharedTests \
	    2>&1 | tee $(VAR)/sanitize-thread.log; [ $${PIPESTATUS[0]} = 0 ] || status=1; \
	echo "sanitize: thread: $$(( $$(date +%s) - start )) s"; exit $$status

# 2,000 mixed sign-ins through nginx + fcgiwrap at concurrency 16, release binaries.
load: build release
	FRONTDOOR_BIN_DIR="$$($(SWIFT) build $(RELEASE_FLAGS) --show-bin-path)" FRONTDOOR_ROOT="$(CURDIR)" \
	    FRONTDOOR_LOAD_REQUESTS=$${FRONTDOOR_LOAD_REQUESTS:-2000} $(SWIFT) test --skip-build --filter LoadTests

# 600 sign-ins SIGKILLed at seeded random moments (make test runs 100); FRONTDOOR_SEED replays one.
crash: build
	FRONTDOOR_BIN_DIR="$$($(SWIFT) build --show-bin-path)" FRONTDOOR_ROOT="$(CURDIR)" \
	    FRONTDOOR_KILLS=$${FRONTDOOR_KILLS:-600} $(SWIFT) test --skip-build --filter CrashSafetyTests

# Writers and checkpoints on one WAL store, SIGKILLed at seeded random moments, for 300 s (make
# test runs 15; docs/sqlite.md); FRONTDOOR_SEED replays one.
wal-stress: build
	FRONTDOOR_BIN_DIR="$$($(SWIFT) build --show-bin-path)" FRONTDOOR_ROOT="$(CURDIR)" \
	    FRONTDOOR_WAL_STRESS_SECONDS=$${FRONTDOOR_WAL_STRESS_SECONDS:-300} $(SWIFT) test --skip-build --filter WALStressTests
