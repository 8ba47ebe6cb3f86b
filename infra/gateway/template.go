// Package gateway stands in for API Gateway's REST API (payload format 1.0) in front of the Lambda
// functions declared in template.yaml. There is no SAM CLI or Docker in development, so the local
// server and the tests route requests through this package: each request is turned into the
// events.APIGatewayProxyRequest the deployed function would receive and run through the same
// httpadapter the Lambda entry points use, so that what passes locally passes for the same reasons
// once deployed.
package gateway

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"gopkg.in/yaml.v3"
)

// Route is one API event of template.yaml: which function serves which path.
type Route struct {
	Function string // logical id of the AWS::Serverless::Function, e.g. "AuthFunction"
	Method   string // upper case, "ANY" allowed
	Path     string // as declared, e.g. "/api/v1/comments/{id}"
}

// The structs below hold only what routing needs. Everything else in the template is left undecoded,
// because it is full of CloudFormation short tags (!Ref, !GetAtt, !Sub) whose values mean nothing
// outside CloudFormation. Properties are kept as yaml.Node so that resources other than functions
// are never decoded at all, whatever their shape.
type samTemplate struct {
	Resources map[string]samResource `yaml:"Resources"`
}

type samResource struct {
	Type       string    `yaml:"Type"`
	Properties yaml.Node `yaml:"Properties"`
}

type samFunctionProperties struct {
	Events map[string]samEvent `yaml:"Events"`
}

type samEvent struct {
	Type string `yaml:"Type"`
	// Path and Method are nodes rather than strings: yaml.v3 would silently decode "!Sub /x/${Y}"
	// into the string "/x/${Y}", and a route that only looks right is worse than an error.
	Properties struct {
		Path   yaml.Node `yaml:"Path"`
		Method yaml.Node `yaml:"Method"`
	} `yaml:"Properties"`
}

const (
	functionType = "AWS::Serverless::Function"
	apiEventType = "Api"
	// MethodAny is the method of a route that serves every HTTP method.
	MethodAny = "ANY"
)

// validMethods are the methods API Gateway accepts for a REST API method, so that a typo in the
// template fails here instead of producing a route no request can reach.
var validMethods = map[string]bool{
	"GET": true, "POST": true, "PUT": true, "PATCH": true, "DELETE": true,
	"HEAD": true, "OPTIONS": true, MethodAny: true,
}

// LoadRoutes reads template.yaml and returns every event of Type "Api" of every
// AWS::Serverless::Function, sorted by path then method.
func LoadRoutes(templatePath string) ([]Route, error) {
	data, err := os.ReadFile(templatePath)
	if err != nil {
		return nil, fmt.Errorf("load routes: read template: %w", err)
	}
	routes, err := ParseRoutes(data)
	if err != nil {
		return nil, fmt.Errorf("load routes from %s: %w", templatePath, err)
	}
	return routes, nil
}

// ParseRoutes extracts the API routes from the text of a SAM template. Events of other types
// (Schedule, SQS, HttpApi, ...) are ignored: they do not come through the REST API.
func ParseRoutes(templateYAML []byte) ([]Route, error) {
	var tpl samTemplate
	if err := yaml.Unmarshal(templateYAML, &tpl); err != nil {
		return nil, fmt.Errorf("parse template: %w", err)
	}
	var routes []Route
	for logicalID, res := range tpl.Resources {
		if res.Type != functionType || res.Properties.IsZero() {
			continue
		}
		var props samFunctionProperties
		if err := res.Properties.Decode(&props); err != nil {
			return nil, fmt.Errorf("parse template: properties of %s: %w", logicalID, err)
		}
		for eventID, ev := range props.Events {
			if ev.Type != apiEventType {
				continue
			}
			route, err := eventRoute(logicalID, ev)
			if err != nil {
				return nil, fmt.Errorf("parse template: event %s of %s: %w", eventID, logicalID, err)
			}
			routes = append(routes, route)
		}
	}
	sortRoutes(routes)
	return routes, nil
}

func eventRoute(function string, ev samEvent) (Route, error) {
	path, err := literal(&ev.Properties.Path, "Path")
	if err != nil {
		return Route{}, err
	}
	if !strings.HasPrefix(path, "/") {
		return Route{}, fmt.Errorf("path %q does not start with /", path)
	}
	method, err := literal(&ev.Properties.Method, "Method")
	if err != nil {
		return Route{}, err
	}
	// SAM accepts "get" or "any" and upper-cases them when it builds the API.
	method = strings.ToUpper(method)
	if !validMethods[method] {
		return Route{}, fmt.Errorf("method %q is not an API Gateway method", method)
	}
	return Route{Function: function, Method: method, Path: path}, nil
}

// literal returns the value of a plain string scalar. Intrinsic functions are refused because the
// route they would produce is only known to CloudFormation.
func literal(n *yaml.Node, field string) (string, error) {
	if n.IsZero() {
		return "", fmt.Errorf("missing %s", field)
	}
	if n.Kind != yaml.ScalarNode || n.Tag != "!!str" {
		return "", fmt.Errorf("%s must be a literal string, got tag %s at line %d", field, n.ShortTag(), n.Line)
	}
	if n.Value == "" {
		return "", fmt.Errorf("empty %s", field)
	}
	return n.Value, nil
}

// sortRoutes orders by path then method (then function, so that duplicates, which New refuses,
// still come out in a stable order).
func sortRoutes(routes []Route) {
	sort.Slice(routes, func(i, j int) bool {
		a, b := routes[i], routes[j]
		if a.Path != b.Path {
			return a.Path < b.Path
		}
		if a.Method != b.Method {
			return a.Method < b.Method
		}
		return a.Function < b.Function
	})
}

// FindTemplate walks up from the working directory to the folder holding go.mod and returns its
// template.yaml path, so that tests (run from their package folder) and the local server (run from
// anywhere in the module) read the same template.
func FindTemplate() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", fmt.Errorf("find template: working directory: %w", err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			path := filepath.Join(dir, "template.yaml")
			if _, err := os.Stat(path); err != nil {
				return "", fmt.Errorf("find template: module root %s: %w", dir, err)
			}
			return path, nil
		} else if !errors.Is(err, fs.ErrNotExist) {
			return "", fmt.Errorf("find template: look for go.mod in %s: %w", dir, err)
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errors.New("find template: no go.mod in the working directory or its parents")
		}
		dir = parent
	}
}
