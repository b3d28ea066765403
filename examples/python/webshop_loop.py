"""The webshop side in Python with requests only: apply every pending product change and
acknowledge each page by revision.

    SGW_URL=http://127.0.0.1:4000 SGW_TOKEN=sgw_... python3 examples/python/webshop_loop.py [--once]

The rules it follows (docs/api.md, "What the change feed guarantees"):
- acknowledge with {"items": [{"id", "revision"}]}: a change pushed after the page was listed stays
  pending and comes back;
- page with since + after_id (the last record's updatedAt and id); a page that is not full ends the
  pass, and the next pass starts from the oldest pending record again;
- on 429 and 503 wait what Retry-After says, then send the same request again (reads and acks by
  revision are safe to repeat).
The "shop" is a JSON file, shop.json, in STATE_DIR.
"""
import json
import os
import sys
import time

import requests

URL = os.environ.get("SGW_URL", "http://127.0.0.1:4000")
TOKEN = os.environ["SGW_TOKEN"]
STATE_DIR = os.environ.get("STATE_DIR", "./webshop-state-py")
LIMIT = 100


def call(method, path, **kwargs):
    """One request, repeated while the service says to wait (429, 503) or the connection fails."""
    for attempt in range(8):
        try:
            response = requests.request(method, URL + path, headers={"Authorization": "Bearer " + TOKEN}, timeout=30, **kwargs)
        except requests.ConnectionError:
            time.sleep(min(30, 0.2 * 2**attempt))
            continue
        if response.status_code in (429, 503):
            time.sleep(float(response.headers.get("Retry-After", 1)))
            continue
        response.raise_for_status()
        return response.json()
    raise RuntimeError(f"{method} {path}: no answer after 8 attempts")


def apply(shop, records):
    """Your shop's work. Idempotent: the same revision applied twice changes nothing."""
    for record in records:
        stored = shop.get(record["externalId"], {"data": {}})
        if record["isNew"]:
            data = record["data"]
        else:
            data = {**stored["data"], **{field: record["data"].get(field) for field in record["changedFields"]}}
        shop[record["externalId"]] = {"revision": record["revision"], "data": data}
        print(f"{'created' if record['isNew'] else 'updated'} {record['externalId']} (revision {record['revision']})")


def main():
    once = "--once" in sys.argv
    os.makedirs(STATE_DIR, exist_ok=True)
    shop_file = os.path.join(STATE_DIR, "shop.json")
    shop = json.load(open(shop_file)) if os.path.exists(shop_file) else {}
    cursor = None
    while True:
        params = {"limit": LIMIT, **(cursor or {})}
        page = call("GET", "/api/v1/updated-products", params=params)
        records = page["payload"]
        if not records:
            if cursor:
                cursor = None  # end of the pass: start again from the oldest pending record
                continue
            if once:
                return
            time.sleep(2)
            continue
        apply(shop, records)
        with open(shop_file + ".tmp", "w") as out:
            json.dump(shop, out)
        os.replace(shop_file + ".tmp", shop_file)
        call("POST", "/api/v1/updated-products/batch-delete", json={"items": [{"id": r["id"], "revision": r["revision"]} for r in records]})
        last = records[-1]
        cursor = {"since": last["updatedAt"], "after_id": last["id"]} if len(records) == LIMIT else None


if __name__ == "__main__":
    main()
