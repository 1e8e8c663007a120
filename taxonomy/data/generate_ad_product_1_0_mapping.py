#!/usr/bin/env python3
"""Generates ad_product_1_0_to_ad_product_2_0.tsv from three public IAB files.

The only public mapping of Ad Product 1.x ids, "Taxonomy Mappings/Ad Product
2.0 to 1.1.tsv", keys each Ad Product 2.0 category by a draft id that the
published "Ad Product Taxonomy 2.0.tsv" does not use. It also gives each row's
tier path (Tier 1, Tier 2, Tier 3 names), so the published id is found by the
publisher's own names: the row's tier path, each name trimmed of surrounding
whitespace and nothing else, must equal the tier path of exactly one published
row. Its "AP1 UID" must be an id of "Ad Product Taxonomy 1.0.tsv", and its AP1
name (the last column) must equal that id's name there. A row that fails any
of these is left out and reported, never guessed at.

Usage (python3, standard library only):
  generate_ad_product_1_0_mapping.py MAPPING AD_PRODUCT_2_0 AD_PRODUCT_1_0 > TABLE

The table goes to standard output; the rows left out, and why, to standard
error. The files, their commits and the result are described in README.md
next to this script.
"""

import sys


def read_rows(path):
    """The file's lines split at tabs, carriage returns dropped."""
    with open(path, encoding="utf-8", newline="") as f:
        text = f.read()
    return [line.split("\t") for line in text.replace("\r", "").split("\n") if line.strip()]


def column(header, name, path, occurrence=0):
    """Index of the `occurrence`-th column called `name` in `header`."""
    found = [i for i, title in enumerate(header) if title.strip() == name]
    if len(found) <= occurrence:
        sys.exit(f"{path}: no column {name!r} in header {header!r}")
    return found[occurrence]


def cell(row, index):
    return row[index].strip() if index < len(row) else ""


def tier_path(row, tier_columns):
    """The trimmed tier names, without the empty tiers after the last one."""
    names = [cell(row, i) for i in tier_columns]
    while names and not names[-1]:
        names.pop()
    return tuple(names)


def main(argv):
    if len(argv) != 4:
        sys.exit(__doc__)
    mapping_path, ap2_path, ap1_path = argv[1:]

    # Published Ad Product 2.0: tier path -> ids.
    ap2 = read_rows(ap2_path)
    header = ap2[0]
    ap2_id = column(header, "Unique ID", ap2_path)
    ap2_tiers = [column(header, f"Tier {n}", ap2_path) for n in (1, 2, 3)]
    ap2_by_path = {}
    for row in ap2[1:]:
        ap2_by_path.setdefault(tier_path(row, ap2_tiers), []).append(cell(row, ap2_id))

    # Ad Product 1.0: id -> name. The file repeats 51 (Coupe); the first row,
    # Ticket Services, is the one the tree keeps (README).
    ap1 = read_rows(ap1_path)
    header = ap1[0]
    ap1_id = column(header, "Unique ID", ap1_path)
    ap1_name = column(header, "Name", ap1_path)
    ap1_names = {}
    for row in ap1[1:]:
        ap1_names.setdefault(cell(row, ap1_id), cell(row, ap1_name))

    # The mapping: a group header ("Ad Product 2.0", "Ad Product 1.1"), then
    # the column header, whose second "Name" is the Ad Product 1.1 name.
    mapping = read_rows(mapping_path)
    header = mapping[1]
    draft_id = column(header, "Unique ID", mapping_path)
    tiers = [column(header, f"Tier {n}", mapping_path) for n in (1, 2, 3)]
    mapped_ap1_id = column(header, "AP1 UID", mapping_path)
    mapped_ap1_name = column(header, "Name", mapping_path)

    pairs = []
    rows_with_ap1 = 0
    left_out = []
    for row in mapping[2:]:
        ap1_code = cell(row, mapped_ap1_id)
        if not ap1_code:
            continue
        rows_with_ap1 += 1
        path = tier_path(row, tiers)
        described = f"draft {cell(row, draft_id)} {' > '.join(path)} -> AP1 {ap1_code}"
        published = ap2_by_path.get(path, [])
        if len(published) != 1:
            reason = "no published 2.0 row has this tier path" if not published else (
                "tier path of several published 2.0 rows: " + ", ".join(published))
            left_out.append(f"{described}: {reason}")
            continue
        if ap1_code not in ap1_names:
            left_out.append(f"{described}: not an id of Ad Product 1.0")
            continue
        name = cell(row, mapped_ap1_name)
        if name != ap1_names[ap1_code]:
            left_out.append(
                f"{described}: the mapping names it {name!r}, Ad Product 1.0 "
                f"{ap1_names[ap1_code]!r}")
            continue
        pair = (ap1_code, published[0])
        if pair not in pairs:
            pairs.append(pair)

    print("# ad_product_1_0\tad_product_2_0")
    for ap1_code, ap2_code in pairs:
        print(f"{ap1_code}\t{ap2_code}")

    print(f"{rows_with_ap1} mapping rows give an AP1 id; {len(pairs)} pairs written; "
          f"{len(left_out)} rows left out:", file=sys.stderr)
    for reason in left_out:
        print(f"- {reason}", file=sys.stderr)


if __name__ == "__main__":
    main(sys.argv)
