#!/usr/bin/env python3
"""The Ad Product 1.0 -> 2.0 generator's join rules, on small files shaped like
the public ones (taxonomy/data/README.md): CRLF lines, a mapping with a group
header row, draft 2.0 ids, tier paths, AP1 ids and names.

Usage: generate_ad_product_1_0_mapping_test.py GENERATOR
"""

import os
import subprocess
import sys
import tempfile
import unittest

GENERATOR = None

MAPPING = [
    "Ad Product 2.0\t\t\t\t\t\tAd Product 1.1\t\t",
    "AP2 Name\tUnique ID\tParent ID\tTier 1\tTier 2\tTier 3\tAP1 UID\tAP1 Parent ID\tName",
    # Joins: its path is published as 1003, 650 is Bars in 1.0.
    "Bars\t1002\t1001\tAlcohol\tBars\t\t650\t648\tBars",
    # No AP1 id: not a row of the table, not counted.
    "Beer\t1003\t1001\tAlcohol\tBeer\t\t\t\t",
    # Surrounding whitespace is trimmed on both sides of the join.
    "Food Logging \t1281\t1280\tDieting \tFood Logging \t\t617\t616\tAdult Education",
    # Spelled differently from the published path: left out.
    "Coffee & Tea\t1127\t1125\tGoods\tBeverages\tCoffee & Tea\t224\t222\tCoffee & Tea",
    # Its path names two published ids: left out.
    "Twice\t1200\t\tTwice\t\t\t29\t27\tCulture and Fine Arts",
    # Not a 1.0 id.
    "HFSS\t1182\t1117\tGoods\tHFSS\t\t80DV7O\t221\tHFSS",
    # The 1.0 id names another category.
    "Theatre\t1314\t1302\tEvents\tTheatre\t\t31\t30\tTheatre and Musicals",
    # Case is not trimmed away.
    "Malls\t1489\t1477\tRetail\tShopping Malls\t\t151\t147\tShopping malls",
    # Two draft rows with the same AP1 id and published path: one pair.
    "Bars again\t1002\t1001\tAlcohol\tBars\t\t650\t648\tBars",
]

PUBLISHED_2_0 = [
    "Unique ID\tParent ID\tName\tTier 1\tTier 2\tTier 3",
    "1002\t\tAlcohol\tAlcohol\t\t",
    "1003\t1002\tBars\tAlcohol\tBars\t",
    "1004\t1002\tBeer\tAlcohol\tBeer\t",
    "1292\t1291\tFood Logging\tDieting\tFood Logging\t",
    "1133\t1131\tCoffee and Tea\tGoods\tBeverages\tCoffee and Tea",
    "1500\t\tTwice\tTwice\t\t",
    "1501\t\tTwice\tTwice\t\t",
    "1188\t1123\tHFSS\tGoods\tHFSS\t",
    "1327\t1315\tTheatre\tEvents\tTheatre\t",
    "1506\t1494\tShopping Malls\tRetail\tShopping Malls\t",
]

AD_PRODUCT_1_0 = [
    "Unique ID\tParent ID\tName\tTier 1\tTier 2\tTier 3\tTier 4\tTier 5",
    "29\t27\tCulture and Fine Arts\tArts\tCulture and Fine Arts\t\t\t",
    "31\t30\tConcerts\tArts\tEvents\tConcerts\t\t",
    "151\t147\tShopping Malls\tBusiness\tRetail\tShopping Malls\t\t",
    "224\t222\tCoffee & Tea\tGoods\tEdible\tBeverages\tCoffee & Tea\t",
    "617\t616\tAdult Education\tEducation and Careers\tAdult Education\t\t\t",
    "650\t648\tBars\tFood and Beverage Services\tBars\t\t\t",
]


class GeneratorTest(unittest.TestCase):
    def run_generator(self, mapping=MAPPING, published=PUBLISHED_2_0, ad_product1=AD_PRODUCT_1_0):
        with tempfile.TemporaryDirectory() as directory:
            paths = []
            for name, lines in (("mapping.tsv", mapping), ("ap2.tsv", published),
                                ("ap1.tsv", ad_product1)):
                path = os.path.join(directory, name)
                with open(path, "w", encoding="utf-8", newline="") as f:
                    f.write("\r\n".join(lines) + "\r\n")
                paths.append(path)
            return subprocess.run([sys.executable, GENERATOR, *paths], capture_output=True,
                                  text=True, check=False)

    def test_writes_only_exact_joins(self):
        result = self.run_generator()
        self.assertEqual(result.returncode, 0, result.stderr)
        self.assertEqual(result.stdout,
                         "# ad_product_1_0\tad_product_2_0\n650\t1003\n617\t1292\n")

    def test_reports_every_row_left_out_with_its_reason(self):
        report = self.run_generator().stderr
        self.assertIn("8 mapping rows give an AP1 id; 2 pairs written; 5 rows left out", report)
        self.assertIn("draft 1127 Goods > Beverages > Coffee & Tea -> AP1 224: no published 2.0 "
                      "row has this tier path", report)
        self.assertIn("draft 1200 Twice -> AP1 29: tier path of several published 2.0 rows: "
                      "1500, 1501", report)
        self.assertIn("draft 1182 Goods > HFSS -> AP1 80DV7O: not an id of Ad Product 1.0",
                      report)
        self.assertIn("AP1 31: the mapping names it 'Theatre and Musicals', Ad Product 1.0 "
                      "'Concerts'", report)
        self.assertIn("AP1 151: the mapping names it 'Shopping malls', Ad Product 1.0 "
                      "'Shopping Malls'", report)

    def test_refuses_a_file_without_the_expected_columns(self):
        published = ["Id\tParent\tName"] + PUBLISHED_2_0[1:]
        result = self.run_generator(published=published)
        self.assertNotEqual(result.returncode, 0)
        self.assertIn("no column 'Unique ID'", result.stderr)


if __name__ == "__main__":
    GENERATOR = sys.argv.pop(1)
    unittest.main()
