package e2e

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// TestBoto3AccountsAreIsolated runs e2e/python_shared (pytest, boto3)
// against Herald started as a shared service, on each storage setup.
func TestBoto3AccountsAreIsolated(t *testing.T) {
	python := pythonForTests(t)
	eachQueueEngine(t, func(t *testing.T, e engine) {
		s := e.start(t, "", sharedArgs()...)
		dir, _ := filepath.Abs("python_shared")
		cmd := exec.Command(python, "-m", "pytest", "-q", "-p", "no:cacheprovider", dir)
		cmd.Env = append(os.Environ(), "HERALD_URL="+s.URL, "HERALD_SECRET="+secret,
			"HERALD_KEY_ALICE="+keyA, "HERALD_KEY_BOB="+keyB, "HERALD_ACCOUNT_BOB="+acctB)
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("pytest with boto3 failed: %v\n%s", err, out)
		}
		t.Logf("boto3: %s", lastLine(string(out)))
	})
}
