package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// installer puts the peers, at their pinned versions, under dir, one
// directory each, from the registries through their own clients (npm,
// Maven, pip, go). Each directory's .installed file names what it holds;
// a directory whose file names the pinned versions is left alone.
type installer struct {
	dir      string
	log      io.Writer // the clients' output
	progress io.Writer // a line per install
}

// paths of what the installs leave, relative to the cache directory.
const (
	nodeBin        = "fauxqs/node_modules/node/bin/node"
	fauxqsLauncher = "fauxqs/run-fauxqs.mjs"
	elasticmqLib   = "elasticmq/lib"
	motoPython     = "moto/venv/bin/python"
	motoLauncher   = "moto/run-moto.py"
	centrifugoBin  = "centrifugo/bin/centrifugo"
)

func (in installer) path(rel string) string { return filepath.Join(in.dir, rel) }

// ensure runs install in sub unless its stamp already reads want and
// every one of needs exists.
func (in installer) ensure(ctx context.Context, sub, want string, needs []string, install func(ctx context.Context, dir string) error) error {
	dir := filepath.Join(in.dir, sub)
	stamp := filepath.Join(dir, ".installed")
	if b, err := os.ReadFile(stamp); err == nil && strings.TrimSpace(string(b)) == want && in.exist(needs) {
		return nil
	}
	for _, w := range []io.Writer{in.progress, in.log} {
		if w != nil {
			fmt.Fprintf(w, "peers: installing %s into %s\n", want, dir)
		}
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	if err := install(ctx, dir); err != nil {
		return fmt.Errorf("installing %s: %w", want, err)
	}
	if !in.exist(needs) {
		return fmt.Errorf("installing %s: %s missing afterwards", want, strings.Join(needs, ", "))
	}
	return os.WriteFile(stamp, []byte(want+"\n"), 0o644)
}

func (in installer) exist(rels []string) bool {
	for _, rel := range rels {
		if _, err := os.Stat(in.path(rel)); err != nil {
			return false
		}
	}
	return true
}

// run runs a command of an install in dir, its output to the log.
func (in installer) run(ctx context.Context, dir string, env []string, name string, args ...string) error {
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), env...)
	cmd.Stdout, cmd.Stderr = in.log, in.log
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("%s %s: %w", name, strings.Join(args, " "), err)
	}
	return nil
}

// fauxqs installs Node (the npm registry's node package) and fauxqs with
// npm, and writes the launcher that starts fauxqs without its
// per-request log.
func (in installer) fauxqs(ctx context.Context) error {
	err := in.ensure(ctx, "fauxqs", "node@"+pins.Node+" fauxqs@"+pins.Fauxqs, []string{nodeBin, "fauxqs/node_modules/fauxqs/package.json"},
		func(ctx context.Context, dir string) error {
			if err := os.WriteFile(filepath.Join(dir, "package.json"), []byte(`{"private": true}`+"\n"), 0o644); err != nil {
				return err
			}
			return in.run(ctx, dir, nil, "npm", "install", "--no-audit", "--no-fund", "node@"+pins.Node, "fauxqs@"+pins.Fauxqs)
		})
	if err != nil {
		return err
	}
	const launcher = `// Written by bench/peers: fauxqs on 127.0.0.1:PORT, without a log line per request.
import { startFauxqs } from "fauxqs";
await startFauxqs({ port: Number(process.argv[2]), host: "127.0.0.1", logger: false });
`
	return os.WriteFile(in.path(fauxqsLauncher), []byte(launcher), 0o644)
}

// elasticmq copies elasticmq-server and its runtime dependencies from
// Maven Central into lib/, the classpath, with a one-dependency POM.
func (in installer) elasticmq(ctx context.Context) error {
	return in.ensure(ctx, "elasticmq", "elasticmq-server_2.13@"+pins.ElasticMQ,
		[]string{filepath.Join(elasticmqLib, "elasticmq-server_2.13-"+pins.ElasticMQ+".jar")},
		func(ctx context.Context, dir string) error {
			pom := `<project xmlns="http://maven.apache.org/POM/4.0.0">
  <modelVersion>4.0.0</modelVersion>
  <groupId>local.herald.bench</groupId>
  <artifactId>elasticmq-peer</artifactId>
  <version>1</version>
  <packaging>pom</packaging>
  <dependencies>
    <dependency>
      <groupId>org.elasticmq</groupId>
      <artifactId>elasticmq-server_2.13</artifactId>
      <version>` + pins.ElasticMQ + `</version>
    </dependency>
  </dependencies>
</project>
`
			if err := os.WriteFile(filepath.Join(dir, "pom.xml"), []byte(pom), 0o644); err != nil {
				return err
			}
			if err := os.RemoveAll(filepath.Join(dir, "lib")); err != nil {
				return err
			}
			return in.run(ctx, dir, nil, "mvn", "-q", "-B", "dependency:copy-dependencies", "-DoutputDirectory=lib", "-DincludeScope=runtime")
		})
}

// moto installs moto[server] into a virtual environment and writes the
// launcher that starts it without werkzeug's line per request.
func (in installer) moto(ctx context.Context) error {
	err := in.ensure(ctx, "moto", "moto[server]@"+pins.Moto, []string{motoPython},
		func(ctx context.Context, dir string) error {
			if err := in.run(ctx, dir, nil, "python3", "-m", "venv", "--clear", "venv"); err != nil {
				return err
			}
			return in.run(ctx, dir, nil, filepath.Join(dir, "venv/bin/pip"), "install", "-q", "moto[server]=="+pins.Moto)
		})
	if err != nil {
		return err
	}
	const launcher = `# Written by bench/peers: moto_server on 127.0.0.1:PORT, without a log line per request.
import logging, sys
logging.getLogger("werkzeug").setLevel(logging.ERROR)
from moto.server import main
main(["-H", "127.0.0.1", "-p", sys.argv[1]])
`
	return os.WriteFile(in.path(motoLauncher), []byte(launcher), 0o644)
}

// centrifugo builds Centrifugo from its Go module with go install, its
// version stamped in as its release builds have it.
func (in installer) centrifugo(ctx context.Context) error {
	return in.ensure(ctx, "centrifugo", "centrifugo@"+pins.Centrifugo, []string{centrifugoBin},
		func(ctx context.Context, dir string) error {
			env := []string{"GOBIN=" + filepath.Join(dir, "bin"), "GOFLAGS=", "GOWORK=off"}
			return in.run(ctx, dir, env, "go", "install",
				"-ldflags=-X github.com/centrifugal/centrifugo/v6/internal/build.Version="+pins.Centrifugo,
				"github.com/centrifugal/centrifugo/v6@v"+pins.Centrifugo)
		})
}

// buildHerald builds the herald command and bench/tcpfloor of the work
// tree at repo into bin.
func buildHerald(ctx context.Context, repo, bin string, log io.Writer) error {
	for _, pkg := range []string{"./cmd/herald", "./bench/tcpfloor"} {
		cmd := exec.CommandContext(ctx, "go", "build", "-o", filepath.Join(bin, filepath.Base(pkg)), pkg)
		cmd.Dir = repo
		cmd.Stdout, cmd.Stderr = log, log
		if err := cmd.Run(); err != nil {
			return fmt.Errorf("go build %s: %w", pkg, err)
		}
	}
	return nil
}
