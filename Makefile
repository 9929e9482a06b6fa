# rca — build, test and sample jobs. Recipes run in bash with pipefail; a failed recipe deletes its target.
SHELL := bash
.SHELLFLAGS := -euo pipefail -c
.DELETE_ON_ERROR:
.PHONY: all build test golden typecheck demo clean bench

SAMPLE := test/fixtures/dackar/ad61d26ecf6e_chunks.jsonl

all: build

node_modules/.package-lock.json: package-lock.json
	npm ci --no-audit --no-fund

build: node_modules/.package-lock.json
	npm run build

typecheck: build
	npm run typecheck

test: node_modules/.package-lock.json
	npm test

# Rewrite every test/golden/*/*/expected.* from the current code; review the diff like code.
golden: node_modules/.package-lock.json
	npm run golden

# The main job on the bundled sample corpus.
demo: build
	mkdir -p out
	./bin/rca-tag $(SAMPLE) > out/sample.tagged.jsonl
	@echo "wrote out/sample.tagged.jsonl ($$(wc -l < out/sample.tagged.jsonl) records)"

bench: build
	node bench/tag-throughput.mjs

clean:
	rm -rf dist out bench/out
