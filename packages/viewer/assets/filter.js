// loclab viewer: the filter language of the instance table (docs/guide/viewer.md).
//   control == "masked" and acc1 == 0 and turns < 5
//   not (exit == "submitted") or instance ~ "django"
// Comparisons: == (or =), !=, <, <=, >, >=, ~ (contains, ignoring case). Values: numbers,
// "strings" or 'strings', true, false, null. Columns by name. and / or / not, parentheses.
// A classic script (no modules): a page opened from disk may not import modules.
(function (root) {
  "use strict";

  function FilterError(message, at) {
    this.name = "FilterError";
    this.message = message;
    this.at = at;
  }
  FilterError.prototype = Object.create(Error.prototype);

  var OPS = ["==", "!=", "<=", ">=", "<", ">", "=", "~"];

  function tokenize(text) {
    var tokens = [];
    var i = 0;
    while (i < text.length) {
      var ch = text[i];
      if (/\s/.test(ch)) {
        i++;
        continue;
      }
      if (ch === "(" || ch === ")") {
        tokens.push({ kind: ch, at: i });
        i++;
        continue;
      }
      if (ch === '"' || ch === "'") {
        var end = i + 1;
        var value = "";
        while (end < text.length && text[end] !== ch) {
          if (text[end] === "\\" && end + 1 < text.length) {
            value += text[end + 1];
            end += 2;
            continue;
          }
          value += text[end++];
        }
        if (end >= text.length) throw new FilterError("a string is not closed", i);
        tokens.push({ kind: "value", value: value, at: i });
        i = end + 1;
        continue;
      }
      var op = null;
      for (var k = 0; k < OPS.length; k++)
        if (text.substr(i, OPS[k].length) === OPS[k]) {
          op = OPS[k];
          break;
        }
      if (op) {
        tokens.push({ kind: "op", value: op === "=" ? "==" : op, at: i });
        i += op.length;
        continue;
      }
      var number = /^-?(\d+\.?\d*|\.\d+)(e[-+]?\d+)?/i.exec(text.slice(i));
      if (number && !/[A-Za-z_]/.test(text[i + number[0].length] || "")) {
        tokens.push({ kind: "value", value: Number(number[0]), at: i });
        i += number[0].length;
        continue;
      }
      var word = /^[A-Za-z_][A-Za-z0-9_.@-]*/.exec(text.slice(i));
      if (word) {
        var w = word[0];
        var lower = w.toLowerCase();
        if (lower === "and" || lower === "or" || lower === "not") tokens.push({ kind: lower, at: i });
        else if (lower === "true" || lower === "false") tokens.push({ kind: "value", value: lower === "true", at: i });
        else if (lower === "null") tokens.push({ kind: "value", value: null, at: i });
        else tokens.push({ kind: "name", value: w, at: i });
        i += w.length;
        continue;
      }
      throw new FilterError("unexpected " + JSON.stringify(ch), i);
    }
    return tokens;
  }

  // Compiles `text` against `columns` (name → array of values, one per row) into a function of
  // the row index. An empty text keeps every row. Throws FilterError with the offending position.
  function compile(text, columns) {
    var tokens = tokenize(text);
    var pos = 0;
    if (tokens.length === 0)
      return function () {
        return true;
      };
    function peek() {
      return tokens[pos];
    }
    function expect(kind) {
      var token = tokens[pos];
      if (!token || token.kind !== kind) throw new FilterError("expected " + kind, token ? token.at : text.length);
      pos++;
      return token;
    }
    function parseOr() {
      var left = parseAnd();
      while (peek() && peek().kind === "or") {
        pos++;
        left = or(left, parseAnd());
      }
      return left;
    }
    function parseAnd() {
      var left = parseNot();
      while (peek() && peek().kind === "and") {
        pos++;
        left = and(left, parseNot());
      }
      return left;
    }
    function parseNot() {
      if (peek() && peek().kind === "not") {
        pos++;
        var inner = parseNot();
        return function (i) {
          return !inner(i);
        };
      }
      return parseComparison();
    }
    function parseComparison() {
      var token = peek();
      if (!token) throw new FilterError("expected a column or a value", text.length);
      if (token.kind === "(") {
        pos++;
        var inner = parseOr();
        expect(")");
        return inner;
      }
      var left = operand();
      var next = peek();
      if (!next || next.kind !== "op") {
        // A bare column: its truthy rows (acc1, resolved).
        if (left.column === undefined) throw new FilterError("a value alone is not a condition", token.at);
        return function (i) {
          var v = left.get(i);
          return v !== null && v !== undefined && v !== 0 && v !== false && v !== "";
        };
      }
      pos++;
      var right = operand();
      return comparison(next.value, left, right, next.at);
    }
    function operand() {
      var token = peek();
      if (!token) throw new FilterError("expected a column or a value", text.length);
      pos++;
      if (token.kind === "value")
        return {
          get: function () {
            return token.value;
          },
        };
      if (token.kind === "name") {
        var values = columns[token.value];
        if (!values)
          throw new FilterError(
            "no column " +
              JSON.stringify(token.value) +
              " (columns: " +
              Object.keys(columns)
                .filter(function (c) {
                  return c !== "t";
                })
                .join(", ") +
              ")",
            token.at,
          );
        return {
          column: token.value,
          get: function (i) {
            return values[i];
          },
        };
      }
      throw new FilterError("unexpected " + token.kind, token.at);
    }
    var predicate = parseOr();
    if (pos < tokens.length)
      throw new FilterError(
        "unexpected " + (tokens[pos].value !== undefined ? JSON.stringify(tokens[pos].value) : tokens[pos].kind),
        tokens[pos].at,
      );
    return predicate;
  }

  function and(a, b) {
    return function (i) {
      return a(i) && b(i);
    };
  }
  function or(a, b) {
    return function (i) {
      return a(i) || b(i);
    };
  }

  function comparison(op, left, right, at) {
    switch (op) {
      case "==":
        return function (i) {
          return equal(left.get(i), right.get(i));
        };
      case "!=":
        return function (i) {
          return !equal(left.get(i), right.get(i));
        };
      case "~":
        return function (i) {
          var a = left.get(i),
            b = right.get(i);
          if (a === null || a === undefined || b === null || b === undefined) return false;
          return String(a).toLowerCase().indexOf(String(b).toLowerCase()) >= 0;
        };
      case "<":
        return ordered(left, right, function (a, b) {
          return a < b;
        });
      case "<=":
        return ordered(left, right, function (a, b) {
          return a <= b;
        });
      case ">":
        return ordered(left, right, function (a, b) {
          return a > b;
        });
      case ">=":
        return ordered(left, right, function (a, b) {
          return a >= b;
        });
    }
    throw new FilterError("unknown operator " + op, at);
  }

  // null never orders: `turns < 5` leaves out rows without turns.
  function ordered(left, right, test) {
    return function (i) {
      var a = left.get(i),
        b = right.get(i);
      if (a === null || a === undefined || b === null || b === undefined) return false;
      if (typeof a === "boolean") a = Number(a);
      if (typeof b === "boolean") b = Number(b);
      return test(a, b);
    };
  }

  function equal(a, b) {
    if (a === undefined) a = null;
    if (b === undefined) b = null;
    if (typeof a === "boolean" && typeof b === "number") return Number(a) === b;
    if (typeof b === "boolean" && typeof a === "number") return Number(b) === a;
    if (typeof a === "number" && typeof b === "string" && b.trim() !== "") return a === Number(b);
    if (typeof b === "number" && typeof a === "string" && a.trim() !== "") return b === Number(a);
    return a === b;
  }

  root.LoclabFilter = { compile: compile, FilterError: FilterError };
})(typeof window !== "undefined" ? window : globalThis);
