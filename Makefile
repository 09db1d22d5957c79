# The README's two commands: `make lecture` and `make test`. Both set up first.
VENV  := .venv
BIN   := $(VENV)/bin
STAMP := $(VENV)/.installed
OUT   := build
# One pytest-xdist worker more than cores: a worker waiting on a browser, a server or a
# subprocess leaves its core to the others.
WORKERS := $(shell echo $$(( $$(nproc) + 1 )))

.PHONY: setup lecture serve test clean

setup: $(STAMP)

$(STAMP): pyproject.toml setup.sh $(wildcard package-lock.json)
	./setup.sh
	touch $@

lecture: setup
	$(BIN)/lecture build --out $(OUT)
	$(BIN)/lecture values --json > $(OUT)/.values.json.tmp
	mv $(OUT)/.values.json.tmp $(OUT)/values.json
	$(BIN)/lecture worksheet export $(OUT)/multihead-worksheet.json

serve: setup
	$(BIN)/lecture serve --out $(OUT)

test: setup
	$(BIN)/ruff check .
	$(BIN)/pytest -q -n $(WORKERS) --dist loadgroup --durations=15

clean:
	rm -rf $(OUT)
