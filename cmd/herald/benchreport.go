package main

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
)

// terminalProgress is stderr when it is a terminal (where a progress bar
// belongs), else nil.
func terminalProgress(stderr io.Writer) io.Writer {
	if f, ok := stderr.(*os.File); ok && isTerminal(f) {
		return stderr
	}
	return nil
}

// writeReport prints a bench run's report, as JSON or as text, and
// returns the run's own error (reported after whatever was measured).
func writeReport(stdout io.Writer, report fmt.Stringer, jsonOut bool, runErr error) error {
	if jsonOut {
		if err := json.NewEncoder(stdout).Encode(report); err != nil {
			return err
		}
	} else {
		fmt.Fprint(stdout, report)
	}
	return runErr
}
