package e2e

import (
	"bytes"
	"os"
	"os/exec"
	"strings"
	"testing"
)

// quickstart returns the shell block under README.md's "## Quickstart".
func quickstart(t *testing.T) string {
	t.Helper()
	raw, err := os.ReadFile("../README.md")
	if err != nil {
		t.Fatal(err)
	}
	_, section, ok := strings.Cut(string(raw), "## Quickstart")
	if !ok {
		t.Fatal("README.md has no Quickstart section")
	}
	_, block, ok := strings.Cut(section, "```sh\n")
	if !ok {
		t.Fatal("README.md's Quickstart has no sh block")
	}
	block, _, _ = strings.Cut(block, "```")
	return block
}

// TestREADMEQuickstartWorksAsWritten runs the README's curl quickstart
// against a real server (its address swapped in) and checks every command
// succeeds and the queries return what the puts stored.
func TestREADMEQuickstartWorksAsWritten(t *testing.T) {
	s := startServer(t, "")
	script := strings.ReplaceAll(quickstart(t), "http://127.0.0.1:4566", s.URL)
	if !strings.Contains(script, s.URL) {
		t.Fatal("the quickstart does not talk to http://127.0.0.1:4566")
	}
	cmd := exec.Command("bash", "-euo", "pipefail", "-c", script)
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	if err := cmd.Run(); err != nil {
		t.Fatalf("quickstart failed: %v\nstdout:\n%s\nstderr:\n%s", err, out.String(), errOut.String())
	}
	for _, want := range []string{
		`"path":"feeds.breaking-news.12345"`, `"path":"feeds.breaking-news.12347"`,
		`"body":"aGVsbG8gd29ybGQ="`, `"feeds.sports.1"`,
	} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("quickstart output lacks %s:\n%s", want, out.String())
		}
	}
}

// TestCLIClientCommands drives the herald binary's client commands against
// a real server.
func TestCLIClientCommands(t *testing.T) {
	s := startServer(t, "")
	root := uniqueWord(t)
	herald := func(args ...string) string {
		t.Helper()
		cmd := exec.Command(heraldBin, append(args, "--server", s.URL)...)
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("herald %v: %v\n%s", args, err, out)
		}
		return string(out)
	}
	put := herald("put", "--path", root+".cli.1", "--metadata", `{"k":"v"}`, "--body", "from the cli", "--ttl", "60", "--output", "json")
	if !strings.Contains(put, `"created": true`) {
		t.Fatalf("herald put printed %s", put)
	}
	id := between(put, `"message_uuid": "`, `"`)
	if got := herald("get", id, "--output", "json"); !strings.Contains(got, `"k": "v"`) || !strings.Contains(got, `"body": "from the cli"`) {
		t.Fatalf("herald get printed %s", got)
	}
	if got := herald("get", id); !strings.Contains(got, `{"k":"v"`) || !strings.Contains(got, "body:         from the cli") {
		t.Fatalf("herald get printed %s", got)
	}
	if got := herald("latest", root+".#"); !strings.Contains(got, root+".cli.1") {
		t.Fatalf("herald latest printed %s", got)
	}
	if got := herald("all", root+".cli.1"); !strings.Contains(got, id) {
		t.Fatalf("herald all printed %s", got)
	}
	if got := herald("journal"); !strings.Contains(got, id) {
		t.Fatalf("herald journal printed %s", got)
	}
	if got := herald("paths", root); !strings.Contains(got, root+".cli.1") {
		t.Fatalf("herald paths printed %s", got)
	}
	help, err := exec.Command(heraldBin, "serve", "--help").CombinedOutput()
	if err != nil || !strings.Contains(string(help), "HERALD_DATA_DIR") {
		t.Fatalf("herald serve --help: %v\n%s", err, help)
	}
}

func between(s, start, end string) string {
	_, rest, _ := strings.Cut(s, start)
	v, _, _ := strings.Cut(rest, end)
	return v
}

// readmeBlock returns the first code block of language lang after heading.
func readmeBlock(t *testing.T, heading, lang string) string {
	t.Helper()
	raw, err := os.ReadFile("../README.md")
	if err != nil {
		t.Fatal(err)
	}
	_, section, ok := strings.Cut(string(raw), heading)
	if !ok {
		t.Fatalf("README.md has no %q section", heading)
	}
	_, block, ok := strings.Cut(section, "```"+lang+"\n")
	if !ok {
		t.Fatalf("README.md's %q has no %s block", heading, lang)
	}
	block, _, _ = strings.Cut(block, "```")
	return block
}

// TestREADMEQueueExampleWorksAsWritten runs the README's boto3 example
// against a real server and checks the message went round.
func TestREADMEQueueExampleWorksAsWritten(t *testing.T) {
	python := pythonForTests(t)
	s := startServer(t, "")
	script := strings.ReplaceAll(readmeBlock(t, "### Queues with the AWS SDKs", "python"), "http://127.0.0.1:4566", s.URL)
	script += "\nprint('RECEIVED', m['Body'])\nassert sqs.receive_message(QueueUrl=url).get('Messages') is None\n"
	out, err := exec.Command(python, "-c", script).CombinedOutput()
	if err != nil {
		t.Fatalf("the README's boto3 example failed: %v\n%s", err, out)
	}
	if !strings.Contains(string(out), "RECEIVED resize photo 42") {
		t.Errorf("the example did not receive its message:\n%s", out)
	}
}

// TestREADMERollupsWalkthroughWorksAsWritten runs the README's rollup
// walkthrough (curl and boto3) against a real server and checks it shows
// the top cities and the trigger's firing.
func TestREADMERollupsWalkthroughWorksAsWritten(t *testing.T) {
	python := pythonForTests(t)
	s := startServer(t, "")
	raw, err := os.ReadFile("../README.md")
	if err != nil {
		t.Fatal(err)
	}
	_, section, ok := strings.Cut(string(raw), "### Rollups")
	if !ok {
		t.Fatal("README.md has no Rollups section")
	}
	_, block, _ := strings.Cut(section, "```sh\n")
	block, _, _ = strings.Cut(block, "```")
	script := strings.ReplaceAll(block, "http://127.0.0.1:4566", s.URL)
	script = strings.ReplaceAll(script, "python3 -", python+" -")
	cmd := exec.Command("bash", "-euo", "pipefail", "-c", script)
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	if err := cmd.Run(); err != nil {
		t.Fatalf("walkthrough failed: %v\nstdout:\n%s\nstderr:\n%s", err, out.String(), errOut.String())
	}
	for _, want := range []string{`{"value":"Lima","values":[4]}`, `"trigger":"ten"`, `"firing_id":`, `"total":12`} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("walkthrough output lacks %s:\n%s", want, out.String())
		}
	}
}
