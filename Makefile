# The README's two commands: `make lecture` and `make test`. Both set up first.
VENV  := .venv
BIN   := $(VENV)/bin
STAMP := $(VENV)/.installed
OUT   := build

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
	$(BIN)/pytest -q -n auto --dist loadgroup --durations=15

clean:
	rm -rf $(OUT)
