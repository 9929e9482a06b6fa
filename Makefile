# rca — build, test, demo and corpus jobs. Recipes run in bash with pipefail; a failed recipe
# deletes its target, and every output is written to a temporary file renamed at the end, so an
# interrupted build never leaves a half file that make would take as done.
SHELL := bash
.SHELLFLAGS := -euo pipefail -c
.DELETE_ON_ERROR:
.PHONY: all build test golden typecheck demo corpus clean bench FORCE

all: build

# --- build ------------------------------------------------------------------------------------
# dist/.built stands for the bins: every output below depends on it, so a new build remakes them
# (and remaking is cheap: replies to unchanged prompts come from the response cache).
BUILT := dist/.built
SOURCES := $(shell find src -name '*.ts') tsconfig.json package.json
# What rca-tag reads besides its input: the built-in lexicon and keyword lists.
TAG_DATA := $(wildcard data/lexicon/* data/keywords/*)

node_modules/.package-lock.json: package-lock.json
	npm ci --no-audit --no-fund

$(BUILT): node_modules/.package-lock.json $(SOURCES)
	npm run build
	touch $@

build: $(BUILT)

typecheck: build
	npm run typecheck

test: node_modules/.package-lock.json
	npm test

# Rewrite the expected files of test/golden/ and of the fake-server cases (test/generation/cases/)
# from the current code; review the diff like code.
golden: node_modules/.package-lock.json
	npm run golden
	RCA_UPDATE_GOLDEN=1 npx vitest run test/generation/server-cases.test.ts

# Every benchmark, one after the other (minutes). Not here: bench/tag-parts.mjs, a per-part
# profile of the tag stage (run it by hand), and the helpers generate-corpus, measure, identity.
BENCHES := tag-throughput streaming-stages startup count-sections-memory generate-throughput cached-rerun
bench: build
	for b in $(BENCHES); do echo "== node bench/$$b.mjs"; node bench/$$b.mjs; done

clean:
	rm -rf dist out bench/out

# $(call write,COMMAND): COMMAND's stdout into $@ through $@.tmp, renamed only when COMMAND succeeded.
write = @echo '$(strip $(1)) > $@'; mkdir -p "$(@D)"; trap 'rm -f "$@.tmp"' EXIT; $(1) > "$@.tmp"; mv -f "$@.tmp" "$@"
# The same, but exit status 1 (views failed or flagged) also keeps the output when KEEP_FAILED is set.
write_keeping_failed = @echo '$(strip $(1)) > $@'; mkdir -p "$(@D)"; trap 'rm -f "$@.tmp"' EXIT; \
	$(1) > "$@.tmp" || { status=$$?; [ "$$status" -eq 1 ] && [ -n "$(KEEP_FAILED)" ] || exit "$$status"; }; \
	mv -f "$@.tmp" "$@"

# --- demo: the main job on the bundled sample corpus, no model needed ---------------------------
# examples/sample-corpus.jsonl: the DACKAR sample (a condition report) and the written SOP, WO and
# ECA fixtures of test/fixtures, one file. Views come from the extractive backend.
SAMPLE := examples/sample-corpus.jsonl

out/sample.tagged.jsonl: $(SAMPLE) $(BUILT) $(TAG_DATA)
	$(call write,./bin/rca-tag $<)

# --flags-ok: a chunk too poor for three keywords is flagged in the record, not a failed demo.
out/sample.summarized.jsonl: out/sample.tagged.jsonl $(BUILT)
	$(call write,./bin/rca-summarize --backend extractive --flags-ok --combined $<)

# The DACKAR sample lists its table chunks after its text chunks: --unsorted.
out/sample.sections.jsonl: out/sample.tagged.jsonl $(BUILT)
	$(call write,./bin/rca-count-sections --unsorted $<)

demo: out/sample.summarized.jsonl out/sample.sections.jsonl
	@echo
	@echo "Sample corpus $(SAMPLE) tagged, summarized (extractive backend, no model) and counted into sections:"
	@echo
	@node examples/summary-table.mjs --by document --sections out/sample.sections.jsonl out/sample.summarized.jsonl
	@echo
	@echo "Results:"
	@echo "  out/sample.tagged.jsonl      each chunk with its context, section_id and NER seed"
	@echo "  out/sample.summarized.jsonl  + retrieval_summary, rca_frame, flags, generation, embedding_text"
	@echo "  out/sample.sections.jsonl    one record per section, with its chunk ids and counts"
	@echo "With a model: ./bin/rca-summarize out/sample.tagged.jsonl > out/sample.model.jsonl  (Ollama at \$$OLLAMA_HOST)"

# --- corpus: make corpus IN=chunks/ OUT=out/corpus/ MODEL=qwen2.5:7b ------------------------------
# One chain per input file: IN/x.chunks.jsonl → OUT/x.tagged.jsonl → OUT/x.summarized.jsonl.
# `make -j4 corpus` runs four files at once on one shared response cache (CONCURRENCY requests
# each: keep jobs × CONCURRENCY near the server's OLLAMA_NUM_PARALLEL). An interrupted or failed
# build is resumed by running the same command: finished files are not remade, and finished views
# of the file that stopped come from the cache. BACKEND=extractive needs no server.
IN ?= corpus
OUT ?= out/corpus
BACKEND ?= ollama
MODEL ?= $(or $(OLLAMA_MODEL),mistral:latest)
CONCURRENCY ?= 2
# Extra rca-summarize flags, e.g. SUMMARIZE_FLAGS='--flags-ok --combined --max-chars 6000'.
SUMMARIZE_FLAGS ?= --flags-ok
# CACHE=path: the response cache file (default: $RCA_CACHE, else ~/.cache/rca/responses.sqlite).
CACHE ?=
# KEEP_FAILED=1: keep a file whose run ended with failed views (null, with their error) instead of
# failing the target; `rca-summarize OUT/x.summarized.jsonl` retries just those views later.
KEEP_FAILED ?=

in_dir := $(patsubst %/,%,$(IN))
out_dir := $(patsubst %/,%,$(OUT))
CHUNK_FILES := $(wildcard $(in_dir)/*.chunks.jsonl)
SUMMARIZED := $(patsubst $(in_dir)/%.chunks.jsonl,$(out_dir)/%.summarized.jsonl,$(CHUNK_FILES))
# Kept (not deleted as intermediates): they are worth reading, and re-tagging is not free.
.SECONDARY: $(SUMMARIZED:.summarized.jsonl=.tagged.jsonl)

# What decides the content of a summarized file; a change remakes every one of them.
SUMMARIZE_SETTINGS := $(strip --backend $(BACKEND) $(if $(filter ollama,$(BACKEND)),--model $(MODEL)) $(SUMMARIZE_FLAGS))
SUMMARIZE_RUN := $(SUMMARIZE_SETTINGS) --concurrency $(CONCURRENCY) $(if $(CACHE),--cache $(CACHE))

FORCE:

# Rewritten only when the settings differ from the last build's, so its date says when they changed.
$(out_dir)/.settings: FORCE
	@mkdir -p "$(@D)"; printf '%s\n' '$(SUMMARIZE_SETTINGS)' | cmp -s - $@ || printf '%s\n' '$(SUMMARIZE_SETTINGS)' > $@

$(out_dir)/%.tagged.jsonl: $(in_dir)/%.chunks.jsonl $(BUILT) $(TAG_DATA)
	$(call write,./bin/rca-tag "$<")

$(out_dir)/%.summarized.jsonl: $(out_dir)/%.tagged.jsonl $(BUILT) $(out_dir)/.settings
	$(call write_keeping_failed,./bin/rca-summarize $(SUMMARIZE_RUN) "$<")

corpus: $(SUMMARIZED)
	@if [ -z "$(CHUNK_FILES)" ]; then echo "make corpus: no $(in_dir)/*.chunks.jsonl files (IN=dir/ names the folder)" >&2; exit 2; fi
	@node examples/summary-table.mjs $(SUMMARIZED)
