"""The Compare tab: series side by side, differences, findings, exports."""
