"""One step of a lab exercise as the student reads it: its title and state, instructions,
locked fields and plan, the button that sets it up on the Measure tab, its result (a chart per
metric its questions ask about, and the findings) and its questions; or the conclusion, the
exercise's own questions."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QHBoxLayout, QLabel, QPushButton, QVBoxLayout, QWidget

from app.analysis.compare import METRIC_INFO, Comparison
from app.report.lab_report import StepReport, step_findings
from app.study.lab.exercises import StepProgress
from app.study.sweep.describe import describe_plan
from app.ui.common.chart_style import style_plot
from app.ui.common.charts import SweepChart
from app.ui.common.render_charts import fill_chart
from app.ui.common.widgets import accessible
from app.ui.exercise.answers import AnswersPanel

STATE_WORDS = {
    "done": "done ✓",
    "started": "started",
    "to do": "to do",
    "locked": "locked",
    "running…": "running…",
}


class StepDetail(QWidget):
    """What the list's current entry says: a step, or the conclusion."""

    def __init__(
        self, save_answer: Callable[[str, str], None], parent: QWidget | None = None
    ) -> None:
        super().__init__(parent)
        self.step_title = QLabel()
        self.step_title.setStyleSheet("font-size: 12pt; font-weight: bold;")
        self.step_title.setWordWrap(True)
        self.step_state = QLabel()
        accessible(self.step_state, "Step state")
        self.instructions = QLabel()
        self.instructions.setWordWrap(True)
        accessible(self.instructions, "Instructions")
        self.locked = QLabel()
        self.locked.setWordWrap(True)
        accessible(self.locked, "Locked fields")
        self.plan_text = QLabel()
        self.plan_text.setWordWrap(True)
        self.setup_button = QPushButton("Set up this step")
        self.setup_button.setToolTip(
            "Fill the Measure tab with this step's plan; the fields the exercise sets are "
            "greyed out. Choose your peer there and press Start."
        )
        # One chart per metric the step's questions ask about: made as a step needs them.
        self.charts: list[SweepChart] = []
        self.chart_box = QVBoxLayout()
        self.findings = QLabel()
        self.findings.setWordWrap(True)
        self.findings.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        accessible(self.findings, "Step findings")
        self.answers = AnswersPanel(save_answer)
        box = QVBoxLayout(self)
        for widget in (
            self.step_title,
            self.step_state,
            self.instructions,
            self.locked,
            self.plan_text,
        ):
            box.addWidget(widget)
        row = QHBoxLayout()
        row.addWidget(self.setup_button)
        row.addStretch(1)
        box.addLayout(row)
        box.addLayout(self.chart_box)
        box.addWidget(self.findings)
        heading = QLabel("Questions")
        heading.setStyleSheet("font-weight: bold;")
        box.addWidget(heading)
        box.addWidget(self.answers)
        box.addStretch(1)

    def show_conclusion(
        self, questions: Sequence[tuple[str, str]], answers: dict[str, str]
    ) -> None:
        """The exercise's own questions, (question id, text), with the answers kept so far."""
        self.step_title.setText("Conclusion")
        self.step_state.setText("")
        self.instructions.setText("Answer the exercise's own questions, then write your report.")
        hidden: tuple[QWidget, ...] = (
            self.locked,
            self.plan_text,
            self.setup_button,
            *self.charts,
            self.findings,
        )
        for widget in hidden:
            widget.setVisible(False)
        self.answers.show_questions(questions, answers)

    def show_step(
        self,
        progress: StepProgress,
        steps: int,
        report: StepReport,
        answers: dict[str, str],
        running: bool,
    ) -> None:
        """One of `steps` steps, its result and questions; `running`: its study measures now."""
        step = progress.step
        for widget in (self.locked, self.plan_text, self.setup_button):
            widget.setVisible(True)
        self.step_title.setText(step.heading(progress.number, steps))
        state = STATE_WORDS["running…" if running else progress.state]
        if running:
            state += ": its study is measuring on the Measure tab."
        elif progress.state == "locked":
            state += f": it opens when step {progress.number - 1} is done."
        self.step_state.setText(f"State: {state}")
        self.instructions.setText(step.instructions)
        self.locked.setText(
            f"Locked by the exercise: {step.locked_text()}." if step.locked else "Nothing locked."
        )
        self.plan_text.setText(f"Plan: {describe_plan(step.plan)}.")
        self.setup_button.setEnabled(progress.available)
        self.setup_button.setToolTip(
            self.setup_button.toolTip()
            if progress.available
            else f"This step opens when step {progress.number - 1} is done."
        )
        self._show_charts(report.charts)
        self.findings.setVisible(True)
        self.findings.setText("\n".join(f"• {s}" for s in step_findings(report)))
        self.answers.show_questions([(qid, q) for qid, q, _ in report.answers], answers)

    def _show_charts(self, comparisons: tuple[Comparison, ...]) -> None:
        """A chart per metric the step asks about (its series within the session)."""
        for index, comparison in enumerate(comparisons):
            if index == len(self.charts):
                chart = SweepChart("", "", is_rate=True)
                chart.setAccessibleName(
                    "Step result chart" if index == 0 else f"Step result chart {index + 1}"
                )
                chart.setMinimumHeight(260)
                self.chart_box.addWidget(chart)
                self.charts.append(chart)
            chart = self.charts[index]
            label, unit, _ = METRIC_INFO[comparison.metric]
            is_rate = comparison.metric == "throughput_bps"
            chart.set_metric(label if is_rate else f"{label} ({unit})", is_rate=is_rate)
            style_plot(chart, f"{label[:1].upper()}{label[1:]} in this step")
            chart.setAccessibleDescription(f"The step's {label} against its swept variable.")
            fill_chart(chart, comparison)
            chart.setVisible(True)
        for chart in self.charts[len(comparisons) :]:
            chart.setVisible(False)
