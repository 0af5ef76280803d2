"""Feedback that tells a student why a hidden test failed, without showing the hidden test."""
from nbgrader.preprocessors import ClearHiddenTests

HIDDEN_MARK = "BEGIN HIDDEN TESTS"


class HideHiddenTests(ClearHiddenTests):
    """Remove hidden test regions from the source, and reduce the traceback of a cell that had
    them to its last line (the exception and its message), since traceback lines quote source."""

    def preprocess_cell(self, cell, resources, cell_index):
        had_hidden = HIDDEN_MARK in cell.source
        cell, resources = super().preprocess_cell(cell, resources, cell_index)
        if had_hidden:
            cell.source = cell.source.rstrip() + "\n# (скрытые тесты не показываются)"
            for output in cell.get("outputs", []):
                if output.output_type == "error":
                    output.traceback = [f"{output.ename}: {output.evalue}"]
        return cell, resources
