#!/usr/bin/env python3
"""vuln_db is a fixture MCP server, in Python with only the standard library,
whose tools have real security flaws; with --fixed it is their clean twin:
the same tool names, descriptions and input schemas, the flaws fixed.

It speaks raw JSON-RPC over stdio, one JSON object per line, and writes
nothing else to stdout: the protocol keeps its own copy of the stream, and
file descriptor 1 and sys.stdout are pointed at stderr, so that whatever an
exploited tool prints (or a command it starts) cannot corrupt the protocol.

Every tool is read-only and takes one required string. A call whose
arguments are not that object is answered with an isError result; malformed
tools/call params and an unknown tool with the error -32602.

- find_user {name}: flawed, the name is pasted into the SQL text of a query
  on an in-memory sqlite3 table users(id, name, email) holding alice and
  bob, so "alice' OR '1'='1" returns both rows and a stray quote shows the
  sqlite3 error (SQL injection). The twin binds the name as a parameter.
  Both answer the rows, one a line, or "no user named NAME".
- calculate {expression}: flawed, the expression is given to eval, so any
  Python runs (code injection). The twin walks the expression's syntax
  tree and allows only numbers, + - * / // % **, unary minus and
  parentheses; anything else is "only arithmetic is allowed".
"""

import ast
import json
import operator
import os
import sqlite3
import sys

SUPPORTED_VERSIONS = ("2025-06-18", "2025-03-26", "2024-11-05", "2025-11-25")
DEFAULT_VERSION = "2025-06-18"


def tool(name, title, description, param, param_description):
    return {
        "name": name,
        "title": title,
        "description": description,
        "annotations": {"title": title, "readOnlyHint": True},
        "inputSchema": {
            "type": "object",
            "properties": {param: {"type": "string", "description": param_description}},
            "required": [param],
            "additionalProperties": False,
        },
    }


TOOLS = [
    tool("find_user", "Find user", "Find a user by exact name.", "name", "The user's name."),
    tool("calculate", "Calculate", "Evaluate an arithmetic expression.", "expression",
         "An arithmetic expression, such as (1 + 2) * 3."),
]
PARAMS = {t["name"]: next(iter(t["inputSchema"]["properties"])) for t in TOOLS}


class ToolError(Exception):
    """The message of an isError result."""


def open_db():
    db = sqlite3.connect(":memory:")
    db.execute("CREATE TABLE users(id INTEGER PRIMARY KEY, name TEXT, email TEXT)")
    db.executemany("INSERT INTO users(id, name, email) VALUES (?, ?, ?)",
                   [(1, "alice", "alice@example.com"), (2, "bob", "bob@example.com")])
    db.commit()
    return db


def error_text(e):
    return str(type(e).__name__) + ": " + str(e)


def find_user(db, fixed, name):
    try:
        if fixed:
            rows = db.execute("SELECT id, name, email FROM users WHERE name = ?", (name,)).fetchall()
        else:
            # The flaw: the name becomes part of the SQL text.
            rows = db.execute(f"SELECT id, name, email FROM users WHERE name = '{name}'").fetchall()
    except Exception as e:  # sqlite3.Error, and ValueError for a NUL in the text
        raise ToolError(error_text(e))
    if not rows:
        return f"no user named {name}"
    return "\n".join(" ".join(str(v) for v in row) for row in rows)


ARITHMETIC = {
    ast.Add: operator.add,
    ast.Sub: operator.sub,
    ast.Mult: operator.mul,
    ast.Div: operator.truediv,
    ast.FloorDiv: operator.floordiv,
    ast.Mod: operator.mod,
    ast.Pow: operator.pow,
}
MAX_BITS = 100_000  # of an integer power, so that 9**9**9 is refused, not computed


class NotArithmetic(Exception):
    pass


def arithmetic(node):
    if isinstance(node, ast.Expression):
        return arithmetic(node.body)
    if isinstance(node, ast.Constant) and type(node.value) in (int, float):
        return node.value
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        return -arithmetic(node.operand)
    if isinstance(node, ast.BinOp) and type(node.op) in ARITHMETIC:
        left, right = arithmetic(node.left), arithmetic(node.right)
        if isinstance(node.op, ast.Pow) and isinstance(left, int) and isinstance(right, int) \
                and abs(left) > 1 and right > 0 and left.bit_length() * right > MAX_BITS:
            raise ToolError("number too large")
        return ARITHMETIC[type(node.op)](left, right)
    raise NotArithmetic()


def calculate(fixed, expression):
    if not fixed:
        try:
            return str(eval(expression))  # The flaw: any Python runs.
        except Exception as e:
            raise ToolError(error_text(e))
    try:
        return str(arithmetic(ast.parse(expression, mode="eval")))
    except (NotArithmetic, SyntaxError):
        raise ToolError("only arithmetic is allowed")
    except ToolError:
        raise
    except Exception as e:  # ZeroDivisionError, OverflowError, a too deep expression…
        raise ToolError(error_text(e))


class RPCError(Exception):
    def __init__(self, code, message):
        super().__init__(message)
        self.code = code
        self.message = message


class Server:
    def __init__(self, fixed, out):
        self.fixed = fixed
        self.out = out
        self.db = open_db()

    def send(self, msg):
        self.out.write(json.dumps(msg, separators=(",", ":")) + "\n")
        self.out.flush()

    def handle_line(self, line):
        try:
            msg = json.loads(line)
        except (ValueError, RecursionError):
            self.send({"jsonrpc": "2.0", "id": None, "error": {"code": -32700, "message": "parse error"}})
            return
        if not isinstance(msg, dict):
            self.send({"jsonrpc": "2.0", "id": None, "error": {"code": -32600, "message": "invalid request"}})
            return
        if "method" not in msg:
            return  # a response to a request this server never sends
        if "id" not in msg:
            return  # a notification
        rid = msg["id"]
        method = msg["method"]
        params = msg.get("params")
        if params is None:
            params = {}
        try:
            if not isinstance(method, str):
                raise RPCError(-32600, "invalid request")
            if not isinstance(params, dict):
                raise RPCError(-32602, "params must be an object")
            result = self.dispatch(method, params)
        except RPCError as e:
            self.send({"jsonrpc": "2.0", "id": rid, "error": {"code": e.code, "message": e.message}})
            return
        except Exception as e:  # a bug here, not a tool's failure
            self.send({"jsonrpc": "2.0", "id": rid, "error": {"code": -32603, "message": error_text(e)}})
            return
        self.send({"jsonrpc": "2.0", "id": rid, "result": result})

    def dispatch(self, method, params):
        if method == "initialize":
            version = params.get("protocolVersion")
            if version not in SUPPORTED_VERSIONS:
                version = DEFAULT_VERSION
            return {
                "protocolVersion": version,
                "capabilities": {"tools": {}},
                "serverInfo": {"name": "vuln-db", "version": "1.0.0"},
            }
        if method == "ping":
            return {}
        if method == "tools/list":
            return {"tools": TOOLS}
        if method == "tools/call":
            return self.call(params)
        raise RPCError(-32601, "method not found: " + method)

    def call(self, params):
        name = params.get("name")
        args = params.get("arguments", {})
        if not isinstance(name, str) or name not in PARAMS:
            raise RPCError(-32602, "unknown tool")
        if not isinstance(args, dict):
            raise RPCError(-32602, "arguments must be an object")
        param = PARAMS[name]
        if set(args) != {param} or not isinstance(args[param], str):
            return error_result(f'{name} needs {{"{param}": string}} and nothing else')
        value = args[param]
        try:
            if name == "find_user":
                text = find_user(self.db, self.fixed, value)
            else:
                text = calculate(self.fixed, value)
        except ToolError as e:
            return error_result(str(e))
        return {"content": [{"type": "text", "text": text}]}


def error_result(text):
    return {"content": [{"type": "text", "text": text}], "isError": True}


def main():
    fixed = "--fixed" in sys.argv[1:]
    # The protocol's own stdout; fd 1 and sys.stdout go to stderr from here.
    out = os.fdopen(os.dup(1), "w", encoding="utf-8", newline="\n")
    os.dup2(2, 1)
    sys.stdout = sys.stderr
    server = Server(fixed, out)
    for line in sys.stdin.buffer:
        line = line.strip()
        if line:
            server.handle_line(line.decode("utf-8", errors="replace"))


if __name__ == "__main__":
    main()
