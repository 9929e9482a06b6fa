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
SOURCES := $(shell find src -name '*.ts' -o -name '*.cts') scripts/bundle-bins.mjs tsconfig.json package.json
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

# Rewrite the expected files of every golden case of test/golden/ (fake-server cases included)
# from the current code, as `npm run golden` does; review the diff like code.
golden: node_modules/.package-lock.json
	npm run golden

# Every benchmark, one after the other (minutes). Not here: bench/tag-parts.mjs, a per-part
# profile of the tag stage (run it by hand), bench/wasm-probe.mjs, the measurement of a compiled
# NER probe (by hand, see BENCHMARKS.md), and the helpers generate-corpus, measure, identity,
# loop-block-probe (preloaded by adversarial into a bin: its longest main-thread block).
BENCHES := tag-throughput runner-output streaming-stages startup count-sections-memory generate-throughput cached-rerun large-record-memory pathological-inputs retrieval adversarial
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
# The same, but exit status 1 (views failed) also keeps the output when KEEP_FAILED is set.
write_keeping_failed = @echo '$(strip $(1)) > $@'; mkdir -p "$(@D)"; trap 'rm -f "$@.tmp"' EXIT; \
	$(1) > "$@.tmp" || { status=$$?; [ "$$status" -eq 1 ] && [ -n "$(KEEP_FAILED)" ] || exit "$$status"; }; \
	mv -f "$@.tmp" "$@"

# --- demo: the main job on the bundled sample corpus, no model needed ---------------------------
# examples/sample-corpus.jsonl: the DACKAR sample (a condition report) and the written SOP, WO and
# ECA fixtures of test/fixtures, one file. Views come from the extractive backend.
SAMPLE := examples/sample-corpus.jsonl
# Where the demo writes (a test runs it into a temporary folder and holds the README's table to it).
DEMO_OUT ?= out

$(DEMO_OUT)/sample.tagged.jsonl: $(SAMPLE) $(BUILT) $(TAG_DATA)
	$(call write,./bin/rca-tag $<)

# A chunk too poor for three keywords is flagged in the record and named on stderr (exit 0).
$(DEMO_OUT)/sample.summarized.jsonl: $(DEMO_OUT)/sample.tagged.jsonl $(BUILT)
	$(call write,./bin/rca-summarize --backend extractive --combined $<)

# The DACKAR sample lists its table chunks after its text chunks: count-sections takes any order.
$(DEMO_OUT)/sample.sections.jsonl: $(DEMO_OUT)/sample.tagged.jsonl $(BUILT)
	$(call write,./bin/rca-count-sections $<)

# A section_summary per section; --bottom-up: a heading without text of its own is summarised from
# its subsections' summaries. The extractive rules take concepts from the built-in lexicon.
$(DEMO_OUT)/sample.section-summaries.jsonl: $(DEMO_OUT)/sample.sections.jsonl $(BUILT) $(TAG_DATA)
	$(call write,./bin/rca-summarize --view section_summary --bottom-up --backend extractive $<)

# The search index of both (keyword search: no model); rebuilt whole, so a changed view never lingers.
$(DEMO_OUT)/sample.index.sqlite: $(DEMO_OUT)/sample.summarized.jsonl $(DEMO_OUT)/sample.section-summaries.jsonl $(BUILT)
	@echo './bin/rca index --db $@ $(filter %.jsonl,$^)'; rm -f "$@" "$@-wal" "$@-shm" "$@.tmp"*; \
	./bin/rca index --db "$@.tmp" $(filter %.jsonl,$^) && mv -f "$@.tmp" "$@"

demo: $(DEMO_OUT)/sample.summarized.jsonl $(DEMO_OUT)/sample.sections.jsonl $(DEMO_OUT)/sample.section-summaries.jsonl $(DEMO_OUT)/sample.index.sqlite
	@echo
	@echo "Sample corpus $(SAMPLE) tagged, summarized (extractive backend, no model), counted into sections and the sections summarized:"
	@echo
	@node examples/summary-table.mjs --by document --sections $(DEMO_OUT)/sample.sections.jsonl --section-summaries $(DEMO_OUT)/sample.section-summaries.jsonl $(DEMO_OUT)/sample.summarized.jsonl
	@echo
	@echo "Results:"
	@echo "  $(DEMO_OUT)/sample.tagged.jsonl             each chunk with its context, section_id and NER seed"
	@echo "  $(DEMO_OUT)/sample.summarized.jsonl         + retrieval_summary, rca_frame, flags, generation, embedding_text"
	@echo "  $(DEMO_OUT)/sample.sections.jsonl           one record per section, with its chunk ids and counts"
	@echo "  $(DEMO_OUT)/sample.section-summaries.jsonl  + section_summary (summary, concepts), view_flags, generation, embedding_text"
	@echo "  $(DEMO_OUT)/sample.index.sqlite             the search index of both (rca index; keyword search needs no model)"
	@echo
	@echo './bin/rca search --db $(DEMO_OUT)/sample.index.sqlite -k 3 "what did the operator do after the vibration alarm"'
	@./bin/rca search --db $(DEMO_OUT)/sample.index.sqlite -k 3 "what did the operator do after the vibration alarm"
	@echo
	@echo "Measured on labelled questions: ./bin/rca eval-retrieval --db $(DEMO_OUT)/sample.index.sqlite --questions test/fixtures/retrieval/sample.questions.jsonl"
	@echo "With a model: ./bin/rca-summarize $(DEMO_OUT)/sample.tagged.jsonl > $(DEMO_OUT)/sample.model.jsonl  (Ollama at \$$OLLAMA_HOST)"

# --- eval-retrieval: the labelled questions of both sets against one index ---------------------
# The real-text set (test/fixtures/realtext/: 372 chunks of 164 NRC and docket documents) built as
# a user would: each part tagged in document order, the chunks summarized, counted into sections
# and the sections summarized (extractive backend, no model), then one index of it and the sample
# corpus, and `rca eval-retrieval` of both question sets (docs/retrieval.md holds its table).
REALTEXT := $(sort $(wildcard test/fixtures/realtext/*.chunks.jsonl))
QUESTION_SETS := test/fixtures/retrieval/sample.questions.jsonl test/fixtures/retrieval/realtext.questions.jsonl

$(DEMO_OUT)/realtext.tagged.jsonl: $(REALTEXT) $(BUILT) $(TAG_DATA)
	$(call write,for part in $(REALTEXT); do ./bin/rca-tag "$$part"; done)

$(DEMO_OUT)/realtext.summarized.jsonl: $(DEMO_OUT)/realtext.tagged.jsonl $(BUILT)
	$(call write,./bin/rca-summarize --backend extractive --combined $<)

$(DEMO_OUT)/realtext.sections.jsonl: $(DEMO_OUT)/realtext.tagged.jsonl $(BUILT)
	$(call write,./bin/rca-count-sections $<)

$(DEMO_OUT)/realtext.section-summaries.jsonl: $(DEMO_OUT)/realtext.sections.jsonl $(BUILT) $(TAG_DATA)
	$(call write,./bin/rca-summarize --view section_summary --bottom-up --backend extractive $<)

RETRIEVAL_INDEX_INPUTS := $(DEMO_OUT)/sample.summarized.jsonl $(DEMO_OUT)/sample.section-summaries.jsonl $(DEMO_OUT)/realtext.summarized.jsonl $(DEMO_OUT)/realtext.section-summaries.jsonl
$(DEMO_OUT)/retrieval.index.sqlite: $(RETRIEVAL_INDEX_INPUTS) $(BUILT)
	@echo './bin/rca index --db $@ $(RETRIEVAL_INDEX_INPUTS)'; rm -f "$@" "$@-wal" "$@-shm" "$@.tmp"*; \
	./bin/rca index --db "$@.tmp" $(RETRIEVAL_INDEX_INPUTS) && mv -f "$@.tmp" "$@"

.PHONY: eval-retrieval
eval-retrieval: $(DEMO_OUT)/retrieval.index.sqlite $(QUESTION_SETS)
	@echo './bin/rca eval-retrieval --db $< $(foreach q,$(QUESTION_SETS),--questions $(q))'
	@./bin/rca eval-retrieval --db $< $(foreach q,$(QUESTION_SETS),--questions $(q))

# --- corpus: make corpus IN=chunks/ OUT=out/corpus/ MODEL=qwen2.5:7b ------------------------------
# One chain per input file: IN/x.chunks.jsonl → OUT/x.tagged.jsonl → OUT/x.summarized.jsonl.
# `make -j4 corpus` runs four files at once on one shared response cache (CONCURRENCY requests
# each: keep jobs × CONCURRENCY near the server's OLLAMA_NUM_PARALLEL). An interrupted or failed
# build is resumed by running the same command: finished files are not remade, and finished views
# of the file that stopped come from the cache. BACKEND=extractive needs no server.
# One file's trouble never stops the others (no -k needed): input lines rca-tag rejects are written
# to OUT/x.rejects.jsonl (rca-summarize's to OUT/x.summarize-rejects.jsonl) and the file is built
# without them; a file whose stage failed is left unbuilt, its reason in OUT/x.failed, and the
# next run tries it again. The table at the end names both; the exit status is not 0 when a file
# failed. An interrupt (Ctrl-C, SIGTERM) stops the whole build at once.
IN ?= corpus
OUT ?= out/corpus
# The ending of the input file names: DACKAR writes <doc>_chunks.jsonl (INPUT_SUFFIX=_chunks.jsonl).
INPUT_SUFFIX ?= .chunks.jsonl
BACKEND ?= ollama
MODEL ?= $(or $(OLLAMA_MODEL),mistral:latest)
CONCURRENCY ?= 2
# Extra rca-summarize flags, e.g. SUMMARIZE_FLAGS='--combined --max-chars 6000' (--fail-on-flags:
# a file with a flagged view fails, as one with a failed view does).
SUMMARIZE_FLAGS ?=
# SERVER_FLAGS: where requests go (--host URL, --base-url URL): not part of the settings, so tasks
# that each talk to their own local server build one corpus.
SERVER_FLAGS ?=
# CACHE=path: the response cache file (default: $RCA_CACHE, else ~/.cache/rca/responses.sqlite).
CACHE ?=
# KEEP_FAILED=1: keep a file whose run ended with failed views (null, with their error) instead of
# failing the target; `rca-summarize OUT/x.summarized.jsonl` retries just those views later.
KEEP_FAILED ?=
# SHARD=k/N: build only the input files whose name hashes to shard k of N (k = 1..N), so that N
# machines sharing IN and OUT (each with its own local CACHE) build disjoint parts of one corpus;
# then `make corpus-verify` checks that OUT holds every input record exactly once, and names the
# shards to build again. OUT/.settings records N: a SHARD with another N is refused (a job array's
# task resubmitted alone must not become SHARD=1/1 and build every file into the shared OUT).
# From a job array: SHARDS=N SHARD_FROM=SLURM_ARRAY_TASK_ID (the variable holding the index) and
# SHARD_OFFSET=M (k = index + M; e.g. 1 for 0-based indices, 1000 for a second array of a corpus
# past MaxArraySize). N is always written in the job script, never taken from the scheduler.
SHARD ?=
SHARDS ?=
SHARD_FROM ?=
SHARD_OFFSET ?= 0

in_dir := $(patsubst %/,%,$(IN))
out_dir := $(patsubst %/,%,$(OUT))
corpus_goals := $(filter corpus corpus-verify $(out_dir)/%,$(MAKECMDGOALS))

ifneq ($(corpus_goals),)
# make splits names at spaces and reads : % # $ as its own: such names are refused, not half-built.
ifneq ($(words $(in_dir)) $(words $(out_dir)) $(words $(INPUT_SUFFIX)),1 1 1)
$(error make corpus: IN, OUT and INPUT_SUFFIX cannot hold spaces (make splits names there): IN='$(IN)' OUT='$(OUT)'; use a path without spaces, e.g. a symbolic link to the folder)
endif
unusable_names := $(shell find '$(in_dir)' -maxdepth 1 -name '*$(INPUT_SUFFIX)' -name '*[][[:space:]:%\#;$$`"'"'"'\\*?]*' -printf "'%f' " 2>/dev/null | head -c 400)
ifneq ($(strip $(unusable_names)),)
$(error make corpus: input file names make cannot use (spaces or one of : % # ; $$ ` ' " \ * ? [ ]) in $(in_dir)/: $(unusable_names); rename them (e.g. with tr ' ' _), or run rca-tag and rca-summarize on them directly)
endif
endif

ifneq ($(strip $(SHARD_FROM)),)
ifneq ($(strip $(SHARD)),)
$(error make corpus: SHARD and SHARD_FROM are two ways to say the same thing; give one)
endif
ifeq ($(strip $(SHARDS)),)
$(error make corpus: SHARD_FROM=$(SHARD_FROM) needs SHARDS=N, the number of shards, written in the job script (never the scheduler's task count: a task resubmitted alone is 1 of 1))
endif
shard_index := $(strip $($(SHARD_FROM)))
ifneq ($(shell [[ '$(shard_index)' =~ ^[0-9]+$$ && '$(SHARD_OFFSET)' =~ ^-?[0-9]+$$ ]] && echo ok),ok)
$(error make corpus: SHARD_FROM=$(SHARD_FROM) holds '$(shard_index)' and SHARD_OFFSET is '$(SHARD_OFFSET)': both must be whole numbers)
endif
SHARD := $(shell echo $$(( $(shard_index) + $(SHARD_OFFSET) )))/$(SHARDS)
else ifneq ($(strip $(SHARDS)),)
ifeq ($(strip $(SHARD)),)
$(error make corpus: SHARDS=N goes with SHARD_FROM=VARIABLE; or give SHARD=k/N)
else ifneq ($(lastword $(subst /, ,$(SHARD))),$(strip $(SHARDS)))
$(error make corpus: SHARD=$(SHARD) and SHARDS=$(SHARDS) disagree on the number of shards)
endif
endif

ALL_CHUNK_FILES := $(wildcard $(in_dir)/*$(INPUT_SUFFIX))
ifeq ($(strip $(SHARD)),)
CHUNK_FILES := $(ALL_CHUNK_FILES)
shard_n := 1
else
shard_k := $(word 1,$(subst /, ,$(SHARD)))
shard_n := $(word 2,$(subst /, ,$(SHARD)))
ifneq ($(shell [[ '$(SHARD)' =~ ^[0-9]+/[0-9]+$$ ]] && (( $(shard_k) >= 1 && $(shard_k) <= $(shard_n) )) && echo ok),ok)
$(error SHARD must be k/N with 1 <= k <= N, e.g. SHARD=2/3; got '$(SHARD)')
endif
# The hash of a file's name, not its place in a listing: every machine computes the same shares,
# and a file added later does not move the others (shard = SHA-256 of the name, first 4 bytes, mod N;
# rca merge --shards N computes the same to name the shards to build again).
CHUNK_FILES := $(shell printf '%s\n' $(ALL_CHUNK_FILES) | node -e ' \
	const { createHash } = require("node:crypto"); \
	const [k, n] = process.argv.slice(1).map(Number); \
	for (const file of require("node:fs").readFileSync(0, "utf8").split("\n").filter(Boolean)) { \
	  const name = file.slice(file.lastIndexOf("/") + 1); \
	  if (createHash("sha256").update(name).digest().readUInt32BE(0) % n === k - 1) console.log(file); \
	}' $(shard_k) $(shard_n))
endif
# The N this OUT was built with: another N is refused before anything is built.
recorded_shards := $(shell sed -n 's/^shards //p' '$(out_dir)/.settings' 2>/dev/null)
ifneq ($(filter corpus $(out_dir)/%,$(MAKECMDGOALS)),)
ifneq ($(recorded_shards),)
ifneq ($(recorded_shards),$(shard_n))
$(error make corpus: $(out_dir)/ is built in $(recorded_shards) shards ($(out_dir)/.settings), but this build says $(if $(SHARD),SHARD=$(SHARD),no SHARD, i.e. 1 shard): it would build files that other shards own. Give SHARD=k/$(recorded_shards) (or SHARDS=$(recorded_shards)); to re-shard on purpose, delete $(out_dir)/.settings first)
endif
endif
endif

SUMMARIZED := $(patsubst $(in_dir)/%$(INPUT_SUFFIX),$(out_dir)/%.summarized.jsonl,$(CHUNK_FILES))
# Kept (not deleted as intermediates): they are worth reading, and re-tagging is not free.
.SECONDARY: $(SUMMARIZED:.summarized.jsonl=.tagged.jsonl)

# What decides the content of a summarized file; a change remakes every one of them.
SUMMARIZE_SETTINGS := $(strip --backend $(BACKEND) $(if $(filter ollama,$(BACKEND)),--model $(MODEL)) $(SUMMARIZE_FLAGS))
SUMMARIZE_RUN := $(SUMMARIZE_SETTINGS) $(SERVER_FLAGS) --concurrency $(CONCURRENCY) $(if $(CACHE),--cache $(CACHE))

FORCE:

# Rewritten only when the settings differ from the last build's, so its date says when they
# changed. Written through a temporary file: the N shards of a job array write it at once.
$(out_dir)/.settings: FORCE
	@mkdir -p "$(@D)"; printf '%s\nshards %s\n' '$(SUMMARIZE_SETTINGS)' '$(shard_n)' | cmp -s - $@ || \
	{ printf '%s\nshards %s\n' '$(SUMMARIZE_SETTINGS)' '$(shard_n)' > "$@.$$$$"; mv -f "$@.$$$$" "$@"; }

# $(call settle,STAGE,STATUSES KEPT): after "status=...; STAGE ... > $@.tmp": keep the output for
# 0 and the statuses given; stop the build on a signal (130 or more: the user or the scheduler
# wants it to end); any other status fails this file only: OUT/x.failed says why, the others go on.
settle = case "$$status" in \
	  0 $(foreach k,$(2),| $(k))) mv -f "$@.tmp" "$@";; \
	  1[3-9][0-9] | 2[0-9][0-9]) exit "$$status";; \
	  *) echo "rca-$(1) exited $$status" > "$(out_dir)/$*.failed"; \
	     echo "make corpus: $*: rca-$(1) exited $$status; the other files go on" >&2;; \
	esac

$(out_dir)/%.tagged.jsonl: $(in_dir)/%$(INPUT_SUFFIX) $(BUILT) $(TAG_DATA) | $(out_dir)/.settings
	@echo './bin/rca-tag --rejects $(out_dir)/$*.rejects.jsonl $< > $@'; trap 'rm -f "$@.tmp"' EXIT; \
	rm -f "$(out_dir)/$*.failed"; status=0; \
	./bin/rca-tag --rejects "$(out_dir)/$*.rejects.jsonl" "$<" > "$@.tmp" || status=$$?; \
	[ -s "$(out_dir)/$*.rejects.jsonl" ] || rm -f "$(out_dir)/$*.rejects.jsonl"; \
	$(call settle,tag,1)

$(out_dir)/%.summarized.jsonl: $(out_dir)/%.tagged.jsonl $(BUILT) $(out_dir)/.settings
	@[ -e "$<" ] || exit 0; \
	echo './bin/rca-summarize $(SUMMARIZE_RUN) $< > $@'; trap 'rm -f "$@.tmp"' EXIT; \
	rm -f "$(out_dir)/$*.failed"; status=0; \
	./bin/rca-summarize $(SUMMARIZE_RUN) --rejects "$(out_dir)/$*.summarize-rejects.jsonl" "$<" > "$@.tmp" || status=$$?; \
	[ -s "$(out_dir)/$*.summarize-rejects.jsonl" ] || rm -f "$(out_dir)/$*.summarize-rejects.jsonl"; \
	$(call settle,summarize,$(if $(KEEP_FAILED),1))

# INDEX=1: also index every summarized file into OUT/index.sqlite (rca index: keyword search, and
# vector search of records embedded with rca-embed). Only the files newer than the index are
# indexed again, each replacing its records, so the shards of a job array add to one index
# (several writers at once are safe). QUESTIONS=FILE (implies INDEX=1): rca eval-retrieval on it,
# into OUT/retrieval.jsonl, which the report shows as its Retrieval table.
INDEX ?=
QUESTIONS ?=
CORPUS_INDEX := $(if $(or $(INDEX),$(QUESTIONS)),$(out_dir)/index.sqlite) $(if $(QUESTIONS),$(out_dir)/retrieval.jsonl)

$(out_dir)/index.sqlite: $(SUMMARIZED) $(BUILT)
	@files='$(wildcard $(filter %.summarized.jsonl,$?))'; \
	if [ -n "$$files" ]; then echo "./bin/rca index --db $@ $$files"; ./bin/rca index --db $@ $$files; fi; touch $@

$(out_dir)/retrieval.jsonl: $(out_dir)/index.sqlite $(QUESTIONS) $(BUILT)
	$(call write,./bin/rca eval-retrieval --db $< --questions $(QUESTIONS) --json)

# The table: one row per file of this build (or shard), its rejects, and the files that failed.
# Exit status 1 when a file failed (make then exits 2), after every file was tried.
corpus: $(SUMMARIZED) $(CORPUS_INDEX)
	@if [ -z "$(ALL_CHUNK_FILES)" ]; then echo "make corpus: no $(in_dir)/*$(INPUT_SUFFIX) files (IN=dir/ names the folder, INPUT_SUFFIX the ending of its file names)" >&2; exit 2; fi
	@if [ -z "$(CHUNK_FILES)" ]; then echo "make corpus: no file of $(in_dir)/ falls in shard $(SHARD); nothing to do"; \
	else status=0; node examples/summary-table.mjs --corpus $(SUMMARIZED) || status=$$?; \
	  : "The report of what OUT/ holds now, failed files too; shards write it in turn (temp + rename)."; \
	  ./bin/rca report "$(out_dir)" --output "$(out_dir)/report.html.tmp.$$$$" && mv -f "$(out_dir)/report.html.tmp.$$$$" "$(out_dir)/report.html" \
	    && echo "report: $(out_dir)/report.html" || { rm -f "$(out_dir)/report.html.tmp.$$$$"; status=1; }; \
	  exit $$status; fi

# After the shards: every record of IN/*.chunks.jsonl in exactly one record of OUT/*.summarized.jsonl;
# when not, the shards whose files are missing, as the list to build again.
corpus-verify: $(BUILT)
	./bin/rca merge --inputs "$(in_dir)" --input-suffix "$(INPUT_SUFFIX)" --outputs "$(out_dir)" $(if $(recorded_shards),--shards $(recorded_shards))
