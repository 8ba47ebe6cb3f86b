#!/usr/bin/env python3
"""Prints template.yaml as the AWS SAM transform turns it into CloudFormation, as JSON.

    python3 infra/scripts/sam-translate.py [--region R] [--param Name=Value ...] [template.yaml]

It runs the same translator (Python's `samtranslator`) that CloudFormation runs for
`Transform: AWS::Serverless-2016-10-31` and that `sam build`/`sam deploy` and cfn-lint bundle, offline, so
that a test (infra/consistency/sam_test.go) can hold the resources SAM generates (the API's paths, its
stage, the functions' roles) to what template.yaml means. Parameters not given take their defaults, as
`sam deploy` does when parameter_overrides leave them out.

Two things differ from a real deployment, both on purpose:
- each function's local `CodeUri` is replaced with a placeholder S3 URI: `sam deploy` uploads the built
  artifact and writes its S3 URI there before CloudFormation transforms the template (the translator
  refuses a local path);
- managed policies are resolved from an empty map: naming an AWS managed policy by name instead of ARN
  needs IAM to look it up, and this template grants only inline statements, so such a name fails here
  loudly instead of calling AWS.

Exit status: 0 with the JSON on stdout; 1 with SAM's error messages on stderr when SAM refuses the
template; 2 for a bad command line; 3 when samtranslator is not installed (the Go tests then skip).
"""

import argparse
import json
import sys

try:
    import boto3
    from samtranslator.model.exceptions import InvalidDocumentException
    from samtranslator.parser.parser import Parser
    from samtranslator.translator.translator import Translator
    from samtranslator.yaml_helper import yaml_parse
except ImportError as err:  # pragma: no cover - depends on the machine
    print(f"sam-translate: cannot import samtranslator and boto3 ({err})", file=sys.stderr)
    sys.exit(3)

PLACEHOLDER_BUCKET = "sam-translate-placeholder"


def main() -> int:
    args = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    args.add_argument("template", nargs="?", default="template.yaml")
    args.add_argument("--region", default="us-east-1")
    args.add_argument("--param", action="append", default=[], metavar="NAME=VALUE")
    opts = args.parse_args()

    with open(opts.template, encoding="utf-8") as f:
        template = yaml_parse(f.read())
    for logical_id, resource in template.get("Resources", {}).items():
        props = resource.get("Properties") or {}
        if resource.get("Type") == "AWS::Serverless::Function" and isinstance(props.get("CodeUri"), str):
            props["CodeUri"] = f"s3://{PLACEHOLDER_BUCKET}/{logical_id}.zip"

    params = {}
    for kv in opts.param:
        name, sep, value = kv.partition("=")
        if not sep:
            print(f"sam-translate: --param {kv!r} is not NAME=VALUE", file=sys.stderr)
            return 2
        params[name] = value

    # A session with a region and no credentials: the translator reads the region and partition from
    # it (ARNs, pseudo parameters) and never calls AWS.
    session = boto3.session.Session(region_name=opts.region)
    translator = Translator(managed_policy_map={}, sam_parser=Parser(), boto_session=session)
    try:
        out = translator.translate(sam_template=template, parameter_values=params)
    except InvalidDocumentException as err:
        for cause in err.causes:
            print(f"sam-translate: {cause.message}", file=sys.stderr)
        return 1
    json.dump(out, sys.stdout, indent=1, sort_keys=True, default=str)
    print()
    return 0


if __name__ == "__main__":
    sys.exit(main())
