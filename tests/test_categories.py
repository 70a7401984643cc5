import numpy as np
import pandas as pd

from huesenv.board import load_board, parse_coord
from huesenv.categories import MACRO_COLOURS, NEUTRAL_CELLS, is_neutral, name_to_category

AGREEMENT_FLOOR = 0.90  # documented in huesenv.categories


def test_every_cell_has_a_macro_colour():
    cats = load_board().categories
    assert len(cats) == 480 and set(cats) <= set(MACRO_COLOURS)
    assert set(cats) == set(MACRO_COLOURS)


def test_agreement_with_paper_table6_labels(shared_dir):
    table = pd.read_csv(shared_dir / "reference" / "paper_table6_word_level.csv")
    labels = {}
    for coord_col, colour_col in (("human_coord", "human_color"), ("model_coord", "model_color")):
        for coord, colour in zip(table[coord_col], table[colour_col]):
            labels[parse_coord(coord)] = colour
    cats = load_board().categories
    board = load_board()
    wrong = sorted((board.coords[i], want, cats[i]) for i, want in labels.items() if cats[i] != want)
    agreement = 1 - len(wrong) / len(labels)
    print(f"\ncategory agreement with Table 6: {len(labels) - len(wrong)}/{len(labels)} = {agreement:.1%}")
    for coord, want, got in wrong:
        print(f"  {coord}: paper {want}, ours {got}")
    assert len(labels) == 111
    assert agreement >= AGREEMENT_FLOOR


def test_neutral_cell_is_i18_and_labelled_blue():
    assert NEUTRAL_CELLS == ("I18",)
    assert is_neutral("I18") and not is_neutral("A1")
    assert load_board().categories[parse_coord("I18")] == "Blue"
    # I18 is among the least chromatic cells of the board
    chroma = np.hypot(load_board().lab[:, 1], load_board().lab[:, 2])
    assert chroma[parse_coord("I18")] <= np.quantile(chroma, 0.1)


def test_colour_name_heads():
    assert name_to_category("greenish blue") == "Blue"
    assert name_to_category("reddish") == "Red"
    assert name_to_category("dusty rose") == "Pink"
    assert name_to_category("bluish grey") is None
