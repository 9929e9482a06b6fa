# rca — build, test, demo and corpus jobs. Recipes run in bash with pipefail; a failed recipe
# deletes its target, and every output is written to a temporary file renamed at the end, so an
# interrupted build never leaves a half file that make would take as done.
SHELL := bash
.SHELLFLAGS := -euo pipefail -c
.DELETE_ON_ERROR:
.PHONY: all build test golden typecheck demo corpus corpus-verify clean bench FORCE

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
BENCHES := tag-throughput streaming-stages startup count-sections-memory generate-throughput cached-rerun large-record-memory pathological-inputs
bench: build
	for b in $(BENCHES); do echo "== node bench/$$b.mjs"; node bench/$$b.mjs; done

# The fault soak (a few minutes): 10,000 requests of rca-summarize against the fake Ollama server,
# about one in ten faulted (503, 500, reset, slow, garbage, truncated), checked against the seeded
# plan and the server's own counts; prints the numbers. SOAK_STAGES=generate,summarize, SOAK_SEED,
# SOAK_REQUESTS, SOAK_FAULT_RATE, SOAK_CONCURRENCY, SOAK_LATENCY_MS tune it. `npm test` runs a
# 400-request version (test/reliability/fault-soak.test.ts).
.PHONY: soak
SOAK_SUMMARY := out/soak-summary.txt
soak: build
	@rm -f $(SOAK_SUMMARY)
	SOAK_SUMMARY=$(SOAK_SUMMARY) npx vitest run --config test/soak/vitest.config.ts || status=$$?; \
	echo; cat $(SOAK_SUMMARY) 2>/dev/null || echo 'soak: no summary written'; exit $${status:-0}

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

# A section_summary per section; --bottom-up: a heading without text of its own is summarised from
# its subsections' summaries. The extractive rules take concepts from the built-in lexicon.
out/sample.section-summaries.jsonl: out/sample.sections.jsonl $(BUILT) $(TAG_DATA)
	$(call write,./bin/rca-summarize --view section_summary --bottom-up --backend extractive --flags-ok $<)

demo: out/sample.summarized.jsonl out/sample.sections.jsonl out/sample.section-summaries.jsonl
	@echo
	@echo "Sample corpus $(SAMPLE) tagged, summarized (extractive backend, no model), counted into sections and the sections summarized:"
	@echo
	@node examples/summary-table.mjs --by document --sections out/sample.sections.jsonl --section-summaries out/sample.section-summaries.jsonl out/sample.summarized.jsonl
	@echo
	@echo "Results:"
	@echo "  out/sample.tagged.jsonl             each chunk with its context, section_id and NER seed"
	@echo "  out/sample.summarized.jsonl         + retrieval_summary, rca_frame, flags, generation, embedding_text"
	@echo "  out/sample.sections.jsonl           one record per section, with its chunk ids and counts"
	@echo "  out/sample.section-summaries.jsonl  + section_summary (summary, concepts), view_flags, generation, embedding_text"
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
# SHARD=k/N: build only the input files whose name hashes to shard k of N (k = 1..N), so that N
# machines sharing IN and OUT (each with its own local CACHE) build disjoint parts of one corpus;
# then `make corpus-verify` checks that OUT holds every input record exactly once.
SHARD ?=

in_dir := $(patsubst %/,%,$(IN))
out_dir := $(patsubst %/,%,$(OUT))
ALL_CHUNK_FILES := $(wildcard $(in_dir)/*.chunks.jsonl)
ifeq ($(strip $(SHARD)),)
CHUNK_FILES := $(ALL_CHUNK_FILES)
else
shard_k := $(word 1,$(subst /, ,$(SHARD)))
shard_n := $(word 2,$(subst /, ,$(SHARD)))
ifneq ($(shell [[ '$(SHARD)' =~ ^[0-9]+/[0-9]+$$ ]] && (( $(shard_k) >= 1 && $(shard_k) <= $(shard_n) )) && echo ok),ok)
$(error SHARD must be k/N with 1 <= k <= N, e.g. SHARD=2/3; got '$(SHARD)')
endif
# The hash of a file's name, not its place in a listing: every machine computes the same shares,
# and a file added later does not move the others (shard = SHA-256 of the name, first 4 bytes, mod N).
CHUNK_FILES := $(shell printf '%s\n' $(ALL_CHUNK_FILES) | node -e ' \
	const { createHash } = require("node:crypto"); \
	const [k, n] = process.argv.slice(1).map(Number); \
	for (const file of require("node:fs").readFileSync(0, "utf8").split("\n").filter(Boolean)) { \
	  const name = file.slice(file.lastIndexOf("/") + 1); \
	  if (createHash("sha256").update(name).digest().readUInt32BE(0) % n === k - 1) console.log(file); \
	}' $(shard_k) $(shard_n))
endif
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
	@if [ -z "$(ALL_CHUNK_FILES)" ]; then echo "make corpus: no $(in_dir)/*.chunks.jsonl files (IN=dir/ names the folder)" >&2; exit 2; fi
	@if [ -z "$(CHUNK_FILES)" ]; then echo "make corpus: no file of $(in_dir)/ falls in shard $(SHARD); nothing to do"; \
	else node examples/summary-table.mjs $(SUMMARIZED); fi

# After the shards: every record of IN/*.chunks.jsonl in exactly one record of OUT/*.summarized.jsonl.
corpus-verify: $(BUILT)
	./bin/rca merge --inputs "$(in_dir)" --outputs "$(out_dir)"
