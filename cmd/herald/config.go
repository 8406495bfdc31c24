package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"reflect"
	"slices"
	"strings"

	"go.yaml.in/yaml/v3"
)

// The configuration file (--config, docs/configuration.md) is YAML whose
// keys are the flags of 'herald serve', found by walking its flag set so
// that no table can fall behind the flags:
//
//   - a key equal to a flag's name sets it: "aws-region: eu-west-1";
//   - a mapping under a key that is no flag name groups flags by the words
//     of their names, joined with '-': "aws: {region: eu-west-1}" is
//     aws-region, "cassandra: {hosts: ...}" is cassandra-hosts;
//   - a list sets a repeatable flag (--sqs-limit, --cache-grants, --limit) once per
//     item and any other flag to its items joined with ',';
//   - a mapping under a repeatable NAME=VALUE flag sets it once per entry:
//     "sqs-limit: {MaxMaximumMessageSize: 2097152}".
//
// Besides flags the file declares queues and topics ("queues:", "topics:",
// declare.go). Precedence, lowest first: defaults, the file, the
// environment (HERALD_*), the command line.

// configKeys are the top-level keys of a configuration file that are not
// flags.
var configKeys = []string{"queues", "topics"}

// fileConfig is what a configuration file declares besides flags.
type fileConfig struct {
	Queues []queueDecl `yaml:"queues"`
	Topics []topicDecl `yaml:"topics"`
}

// queueDecl is one queue created at start-up.
type queueDecl struct {
	Name       string               `yaml:"name"`
	Account    string               `yaml:"account"` // default --aws-account
	Region     string               `yaml:"region"`  // default --aws-region
	Attributes attributeMap         `yaml:"attributes"`
	DLQ        *deadLetterQueueDecl `yaml:"dead_letter_queue"`
	Tags       map[string]string    `yaml:"tags"`
}

// deadLetterQueueDecl is the dead_letter_queue shortcut for a
// RedrivePolicy naming a queue of the same account and region.
type deadLetterQueueDecl struct {
	Name            string `yaml:"name"`
	MaxReceiveCount int    `yaml:"max_receive_count"`
}

// topicDecl is one topic created at start-up, with its subscriptions.
type topicDecl struct {
	Name          string             `yaml:"name"`
	Account       string             `yaml:"account"`
	Region        string             `yaml:"region"`
	Attributes    attributeMap       `yaml:"attributes"`
	Tags          map[string]string  `yaml:"tags"`
	Subscriptions []subscriptionDecl `yaml:"subscriptions"`
}

// subscriptionDecl is one subscription of a declared topic. Queue is a
// shortcut for protocol sqs and the ARN of that queue of the topic's
// account and region.
type subscriptionDecl struct {
	Protocol   string       `yaml:"protocol"`
	Endpoint   string       `yaml:"endpoint"`
	Queue      string       `yaml:"queue"`
	Attributes attributeMap `yaml:"attributes"`
}

// attributeMap is SQS or SNS attributes: each value a scalar, or a
// mapping or list (a policy) written as YAML and passed on as JSON.
type attributeMap map[string]string

func (m *attributeMap) UnmarshalYAML(n *yaml.Node) error {
	if n.Kind != yaml.MappingNode {
		return fmt.Errorf("line %d: attributes must be a mapping of NAME: VALUE", n.Line)
	}
	*m = attributeMap{}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		switch v.Kind {
		case yaml.ScalarNode:
			(*m)[k.Value] = v.Value
		case yaml.MappingNode, yaml.SequenceNode:
			var x any
			if err := v.Decode(&x); err != nil {
				return err
			}
			b, err := json.Marshal(x)
			if err != nil {
				return fmt.Errorf("line %d: attribute %s: %v", v.Line, k.Value, err)
			}
			(*m)[k.Value] = string(b)
		default:
			return fmt.Errorf("line %d: attribute %s: want a value", v.Line, k.Value)
		}
	}
	return nil
}

// flagSetting is one flag's value(s) from the file.
type flagSetting struct {
	name   string
	values []string
	line   int
}

// loadConfigFile reads the configuration file at path and sets the flags of
// fs it names, except those the command line set (fs.Visit) or the
// environment sets. It returns the declared resources.
func loadConfigFile(fs *flag.FlagSet, path string) (fileConfig, error) {
	var fc fileConfig
	data, err := os.ReadFile(path)
	if err != nil {
		return fc, fmt.Errorf("--config: %w", err)
	}
	settings, fc, err := parseConfig(fs, data)
	if err != nil {
		return fc, fmt.Errorf("%s: %w", path, err)
	}
	onCommandLine := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { onCommandLine[f.Name] = true })
	for _, s := range settings {
		if onCommandLine[s.name] {
			continue
		}
		if _, set := os.LookupEnv(envName(s.name)); set && fromEnv(fs, s.name) {
			continue
		}
		f := fs.Lookup(s.name)
		for _, v := range s.values {
			if err := f.Value.Set(v); err != nil {
				return fc, fmt.Errorf("%s:%d: %s: %q: %v", path, s.line, s.name, v, err)
			}
		}
	}
	return fc, nil
}

// parseConfig reads a configuration file: the flag values it sets, in file
// order, and the resources it declares.
func parseConfig(fs *flag.FlagSet, data []byte) ([]flagSetting, fileConfig, error) {
	var fc fileConfig
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return nil, fc, err
	}
	if len(doc.Content) == 0 {
		return nil, fc, nil // an empty file
	}
	root := doc.Content[0]
	if root.Kind != yaml.MappingNode {
		return nil, fc, fmt.Errorf("line %d: want a mapping of flag names to values", root.Line)
	}
	var settings []flagSetting
	seen := map[string]int{}
	rest := &yaml.Node{Kind: yaml.MappingNode}
	for i := 0; i+1 < len(root.Content); i += 2 {
		k, v := root.Content[i], root.Content[i+1]
		if slices.Contains(configKeys, k.Value) {
			rest.Content = append(rest.Content, k, v)
			continue
		}
		if err := flagsOf(fs, "", k, v, &settings, seen); err != nil {
			return nil, fc, err
		}
	}
	if err := checkKeys(rest, reflect.TypeOf(fc), ""); err != nil {
		return nil, fc, err
	}
	if err := rest.Decode(&fc); err != nil {
		return nil, fc, err
	}
	return settings, fc, nil
}

// flagsOf reads key k (under prefix, "" or "word-") with value v as flag
// settings.
func flagsOf(fs *flag.FlagSet, prefix string, k, v *yaml.Node, out *[]flagSetting, seen map[string]int) error {
	name := prefix + k.Value
	f := fs.Lookup(name)
	if f == nil || name == "config" {
		if v.Kind == yaml.MappingNode && f == nil {
			for i := 0; i+1 < len(v.Content); i += 2 {
				if err := flagsOf(fs, name+"-", v.Content[i], v.Content[i+1], out, seen); err != nil {
					return err
				}
			}
			return nil
		}
		if name == "config" {
			return fmt.Errorf("line %d: config: a configuration file cannot name another", k.Line)
		}
		return fmt.Errorf("line %d: unknown key %q: no flag --%s (closest: --%s)", k.Line, k.Value, name, closestFlag(fs, name))
	}
	if line, dup := seen[name]; dup {
		return fmt.Errorf("line %d: %s is set twice (first on line %d)", k.Line, name, line)
	}
	seen[name] = k.Line
	s := flagSetting{name: name, line: k.Line}
	repeatable := isRepeatable(f)
	switch v.Kind {
	case yaml.ScalarNode:
		if v.Tag == "!!null" {
			return fmt.Errorf("line %d: %s has no value", k.Line, name)
		}
		s.values = []string{v.Value}
	case yaml.SequenceNode:
		items, err := scalars(name, v)
		if err != nil {
			return err
		}
		if repeatable {
			s.values = items
		} else {
			s.values = []string{strings.Join(items, ",")}
		}
	case yaml.MappingNode:
		if !repeatable {
			return fmt.Errorf("line %d: %s takes a value, not a mapping", k.Line, name)
		}
		for i := 0; i+1 < len(v.Content); i += 2 {
			item, value := v.Content[i], v.Content[i+1]
			text := value.Value
			if value.Kind == yaml.SequenceNode {
				items, err := scalars(name+" "+item.Value, value)
				if err != nil {
					return err
				}
				text = strings.Join(items, ",")
			} else if value.Kind != yaml.ScalarNode {
				return fmt.Errorf("line %d: %s: %s: want a value or a list", value.Line, name, item.Value)
			}
			s.values = append(s.values, item.Value+"="+text)
		}
	default:
		return fmt.Errorf("line %d: %s: want a value", k.Line, name)
	}
	*out = append(*out, s)
	return nil
}

// scalars returns the items of list v, each a value.
func scalars(name string, v *yaml.Node) ([]string, error) {
	var items []string
	for _, item := range v.Content {
		if item.Kind != yaml.ScalarNode {
			return nil, fmt.Errorf("line %d: %s: a list of values only", item.Line, name)
		}
		items = append(items, item.Value)
	}
	return items, nil
}

// isRepeatable reports whether each Set of f adds to its value (NAME=VALUE
// flags) instead of replacing it.
func isRepeatable(f *flag.Flag) bool {
	switch f.Value.(type) {
	case *sqsLimits, *accountGrants, *limitRules:
		return true
	}
	return false
}

// checkKeys refuses keys of mapping n that no yaml tag of struct type t
// names, recursively, naming the closest one.
func checkKeys(n *yaml.Node, t reflect.Type, where string) error {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch {
	case n.Kind == yaml.SequenceNode && t.Kind() == reflect.Slice:
		for _, item := range n.Content {
			if err := checkKeys(item, t.Elem(), where); err != nil {
				return err
			}
		}
	case n.Kind == yaml.MappingNode && t.Kind() == reflect.Struct:
		fields := map[string]reflect.Type{}
		var names []string
		for i := range t.NumField() {
			tag, _, _ := strings.Cut(t.Field(i).Tag.Get("yaml"), ",")
			fields[tag] = t.Field(i).Type
			names = append(names, tag)
		}
		for i := 0; i+1 < len(n.Content); i += 2 {
			k := n.Content[i]
			ft, ok := fields[k.Value]
			if !ok {
				return fmt.Errorf("line %d: unknown key %q%s (closest: %s)", k.Line, k.Value, where, nearest(k.Value, names, -1))
			}
			if err := checkKeys(n.Content[i+1], ft, " in "+k.Value); err != nil {
				return err
			}
		}
	}
	return nil
}

// closestFlag is the flag of fs whose name is nearest to name.
func closestFlag(fs *flag.FlagSet, name string) string {
	var names []string
	fs.VisitAll(func(f *flag.Flag) {
		if f.Name != "config" {
			names = append(names, f.Name)
		}
	})
	return nearest(name, names, -1)
}
