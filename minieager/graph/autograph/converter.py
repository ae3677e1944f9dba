"""AutoGraph's converter: a function's source rewritten (with the standard library's ``ast``) so that
its ``if``, ``while``, ``for``, ``and``, ``or`` and ``not`` call the helpers of runtime.py, which
decide when the code runs whether each stays Python or becomes me.cond / me.while_loop.

    if x > 0:                         def if_true_2(y):
        y = x                             y = x
    else:                     ->          return (y,)
        y = -x                        def if_false_2(y):
                                          y = -x
                                          return (y,)
                                      (y,) = ag.if_stmt(x > 0, if_true_2, if_false_2, (y,))

Three passes over the function's syntax tree, each a small class below:

1. ``Jumps``: ``break`` and ``continue`` become flags (``break_5 = True``) and the statements after
   them run under ``if not break_5:``; a function's ``if ...: return a`` takes the rest of the
   function as its ``else``, so that both branches end in a ``return``.
2. ``variables_of``: which variables each statement hands on (assigned in it, and defined before it
   or used after it): the parameters and results of its branch / body functions.
3. ``ControlFlow``: each statement becomes functions and one helper call.

Line numbers are kept, and the code is compiled under the user's file name, so errors and tracebacks
point at the user's lines. ``to_code`` prints the result with a comment for each converted line.
"""
import ast
import builtins
import copy

COMMENT = "__ag_comment__"
BUILTINS = set(dir(builtins))   # print(...), len(...), range(...) are called as they are     # a marker call that to_code turns into a comment (removed before compiling)
LOOPS = (ast.For, ast.While, ast.AsyncFor)
SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef, ast.ListComp, ast.SetComp,
          ast.DictComp, ast.GeneratorExp)


class NotConverted(Exception):
    """A function AutoGraph leaves as it is (me.function traces it as written, with a warning saying why)."""


class ConversionError(Exception):
    """Code AutoGraph cannot turn into a graph (the message names the line and what to write instead)."""


def _walk(node):
    """Every node under ``node`` without entering nested functions, classes or comprehensions."""
    todo = list(ast.iter_child_nodes(node))
    while todo:
        n = todo.pop()
        yield n
        if not isinstance(n, SCOPES):
            todo.extend(ast.iter_child_nodes(n))


def _walk_body(stmts):
    for s in stmts:
        yield s
        if not isinstance(s, SCOPES):
            yield from _walk(s)


def _contains(stmts, kinds, into_loops=True):
    """Whether ``stmts`` hold a statement of ``kinds`` (not counting nested functions; loops only if asked)."""
    todo = list(stmts)
    while todo:
        s = todo.pop()
        if isinstance(s, kinds):
            return True
        if isinstance(s, SCOPES) or (not into_loops and isinstance(s, LOOPS)):
            continue
        todo.extend(c for c in ast.iter_child_nodes(s) if isinstance(c, ast.stmt))
    return False


def _name(id_, store=False):
    return ast.Name(id=id_, ctx=ast.Store() if store else ast.Load())


def _assign(name, value, at):
    return ast.copy_location(ast.Assign(targets=[_name(name, True)], value=value), at)


def _call(func, args, keywords=()):
    return ast.Call(func=func, args=list(args), keywords=list(keywords))


def _ag(helper):
    return ast.Attribute(value=_name("ag"), attr=helper, ctx=ast.Load())


def _comment(text, at):
    return ast.copy_location(ast.Expr(_call(_name(COMMENT), [ast.Constant(text)])), at)


def _source_line(lines, node):
    return lines[node.lineno - 1].strip() if 0 < node.lineno <= len(lines) else ""


# ---- pass 1: break, continue, return ------------------------------------------------------------
class Jumps:
    """Lowers ``break``/``continue`` to flags and lifts ``return`` out of ``if`` branches."""

    def __init__(self):
        self.flags = set()     # the flag names made (always defined where they are used)

    def function(self, fn):
        fn.body = self.lift_returns(self.loops_in(fn.body))
        return fn

    def loops_in(self, stmts):
        out = []
        for s in stmts:
            for field in ("body", "orelse", "finalbody"):
                if hasattr(s, field) and not isinstance(s, SCOPES):
                    setattr(s, field, self.loops_in(getattr(s, field)))
            if hasattr(s, "handlers"):
                for h in s.handlers:
                    h.body = self.loops_in(h.body)
            if isinstance(s, (ast.For, ast.While)) and not s.orelse and not _contains(s.body, ast.Return, False):
                out.extend(self.lower_loop(s))
            else:
                out.append(s)
        return out

    def lower_loop(self, loop):
        before = []
        if _contains(loop.body, ast.Continue, into_loops=False):
            flag = f"continue_{loop.lineno}"
            self.flags.add(flag)
            loop.body = [_assign(flag, ast.Constant(False), loop.body[0])] + self.replace(loop.body, ast.Continue, flag)
        if _contains(loop.body, ast.Break, into_loops=False):
            flag = f"break_{loop.lineno}"
            self.flags.add(flag)
            before.append(_assign(flag, ast.Constant(False), loop))
            loop.body = self.replace(loop.body, ast.Break, flag)
            not_broken = ast.UnaryOp(op=ast.Not(), operand=_name(flag))
            if isinstance(loop, ast.While):
                loop.test = ast.copy_location(ast.BoolOp(op=ast.And(), values=[not_broken, loop.test]), loop.test)
            else:
                loop.ag_extra_test = not_broken
        return before + [loop]

    def replace(self, stmts, kind, flag):
        """``break``/``continue`` -> ``flag = True``; what follows a statement that may set the flag
        runs under ``if not flag:``."""
        out = []
        for i, s in enumerate(stmts):
            if isinstance(s, kind):
                out.append(_assign(flag, ast.Constant(True), s))
                return out                                   # the rest of the block is dead code
            if isinstance(s, (ast.If, ast.With, ast.Try)) and _contains([s], kind, into_loops=False):
                for field in ("body", "orelse", "finalbody"):
                    if getattr(s, field, None):
                        setattr(s, field, self.replace(getattr(s, field), kind, flag))
                for h in getattr(s, "handlers", []):
                    h.body = self.replace(h.body, kind, flag)
                out.append(s)
                rest = stmts[i + 1:]
                if rest:
                    guard = ast.If(test=ast.UnaryOp(op=ast.Not(), operand=_name(flag)),
                                   body=self.replace(rest, kind, flag), orelse=[])
                    ast.copy_location(guard, rest[0])
                    guard.end_lineno = max(r.end_lineno for r in rest)    # it spans the statements it guards
                    out.append(guard)
                return out
            out.append(s)
        return out

    def lift_returns(self, stmts):
        """``if c: ...; return a`` followed by more code: the more code becomes the ``else``, so that
        both branches return and the ``if`` can become one me.cond returning the function's result."""
        out = []
        for i, s in enumerate(stmts):
            if isinstance(s, ast.Return):
                out.append(s)
                return out
            if isinstance(s, ast.If) and _contains([s], ast.Return, into_loops=False) and \
                    not _contains(s.body + s.orelse, (ast.Try, ast.With), into_loops=False):
                rest = stmts[i + 1:]
                s.body = self._ends_in_return(self.lift_returns(s.body + rest), s)
                s.orelse = self._ends_in_return(self.lift_returns(s.orelse + copy.deepcopy(rest)), s)
                s.ag_returns = True
                s.end_lineno = max(x.end_lineno for x in s.body + s.orelse)
                out.append(s)
                return out
            out.append(s)
        return out

    @staticmethod
    def _ends_in_return(stmts, at):
        if not stmts or not isinstance(stmts[-1], ast.Return):
            stmts.append(ast.copy_location(ast.Return(value=None), stmts[-1] if stmts else at))
        return stmts


# ---- pass 2: which variables a statement hands on -----------------------------------------------
class Variables:
    """Where each name is assigned and read in the function (by line), to find what a statement hands on."""

    def __init__(self, fn, flags):
        self.params = {a.arg for a in fn.args.posonlyargs + fn.args.args + fn.args.kwonlyargs}
        self.params |= {a.arg for a in (fn.args.vararg, fn.args.kwarg) if a is not None}
        self.flags = flags
        self.globals = {name for n in _walk_body(fn.body) if isinstance(n, ast.Global)
                        for name in n.names}            # never handed on: the nested functions declare them
        self.stores, self.loads = [], []                # (line, name)
        for n in _walk_body(fn.body):
            if isinstance(n, ast.Name):
                (self.stores if isinstance(n.ctx, ast.Store) else self.loads).append((n.lineno, n.id))
            elif isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                self.stores.append((n.lineno, n.name))

    @staticmethod
    def assigned(stmts):
        names = []
        for n in _walk_body(stmts):
            found = n.id if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store) else \
                n.name if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) else None
            if found and found not in names:
                names.append(found)
        return sorted(names)

    def defined_before(self, name, stmt):
        # A loop's break flag is set on the loop's own line, just before it.
        return name in self.params or any(
            (line < stmt.lineno or (line == stmt.lineno and name in self.flags)) and n == name
            for line, n in self.stores)

    def used_after(self, name, stmt, loop):
        """Read after ``stmt``; or, inside a loop, a variable of that loop (defined before it), read anywhere
        in it (the next iteration reads it again). Names first set inside the loop are its temporaries."""
        after = any(line > stmt.end_lineno and n == name for line, n in self.loads)
        in_loop = loop is not None and self.defined_before(name, loop) and any(
            loop.lineno <= line <= loop.end_lineno and n == name for line, n in self.loads)
        return after or in_loop

    def handed_on(self, stmts, stmt, loop, exclude=()):
        """The variables ``stmts`` (the body of ``stmt``) assign that live on outside it."""
        return [n for n in self.assigned(stmts) if n not in exclude and n not in self.globals
                and (self.defined_before(n, stmt) or self.used_after(n, stmt, loop))]


# ---- pass 3: statements -> helper calls ---------------------------------------------------------
class ControlFlow(ast.NodeTransformer):
    """if/while/for -> functions + ``ag.if_stmt`` / ``ag.while_stmt`` / ``ag.for_stmt``; and/or/not -> ``ag.and_``..."""

    def __init__(self, variables, lines):
        self.vars, self.lines = variables, lines
        self.loops = []            # the enclosing loops (their variables are used again next iteration)
        self.python_only = 0       # > 0 inside a try: statements there stay Python

    # nested functions and classes keep their own code
    def visit_FunctionDef(self, node):
        return node

    visit_AsyncFunctionDef = visit_ClassDef = visit_Lambda = visit_FunctionDef

    def visit_BoolOp(self, node):
        self.generic_visit(node)
        helper = "and_" if isinstance(node.op, ast.And) else "or_"
        result = node.values[-1]
        for value in reversed(node.values[:-1]):
            result = _call(_ag(helper), [self._thunk(value), self._thunk(result)])
        return ast.copy_location(result, node)

    def visit_Call(self, node):
        """``helper(x)`` -> ``ag.call(helper, x)``: a function of yours called by name is converted too (as
        TF's converted_call does). Calls of attributes (``me.tanh``, ``self.layer``) and builtins stay."""
        self.generic_visit(node)
        if isinstance(node.func, ast.Name) and node.func.id not in BUILTINS and node.func.id != COMMENT:
            return ast.copy_location(ast.Call(func=_ag("call"), args=[node.func] + node.args,
                                              keywords=node.keywords), node)
        return node

    def visit_UnaryOp(self, node):
        self.generic_visit(node)
        if isinstance(node.op, ast.Not):
            return ast.copy_location(_call(_ag("not_"), [node.operand]), node)
        return node

    @staticmethod
    def _thunk(expr):
        return ast.Lambda(args=ast.arguments(posonlyargs=[], args=[], kwonlyargs=[], kw_defaults=[], defaults=[]),
                          body=expr)

    def visit_Try(self, node):
        self.python_only += 1
        self.generic_visit(node)
        self.python_only -= 1
        return node

    visit_TryStar = visit_Try

    def _stays_python(self, node, field, reason):
        """A condition left to Python, checked: a symbolic tensor there raises ``reason``."""
        line = f"{node.lineno} (`{_source_line(self.lines, node)}`)"
        value = getattr(node, field)
        keywords = []
        if field == "iter":
            value = self._range(value)
            keywords.append(ast.keyword("iterable", ast.Constant(True)))
        setattr(node, field, _call(_ag("stay_python"), [value, ast.Constant(line), ast.Constant(reason)], keywords))
        return node

    # ---- if --------------------------------------------------------------------------------------
    def visit_If(self, node):
        returns = getattr(node, "ag_returns", False)
        loop = self.loops[-1] if self.loops else None
        handed = [] if returns else self.vars.handed_on(node.body + node.orelse, node, loop)
        if returns:   # the branches read the variables they assign (as parameters: each branch starts afresh)
            handed = [n for n in self.vars.assigned(node.body + node.orelse) if self.vars.defined_before(n, node)]
        self.generic_visit(node)
        if self.python_only:
            return self._stays_python(node, "test", "a `try` around an `if` on a tensor cannot become a graph "
                                      "(a graph has no exceptions). Move the `if` out of the `try`.")
        if not returns and _contains(node.body + node.orelse, ast.Return, into_loops=False):
            return self._stays_python(node, "test", "a `return` inside an `if` on a tensor inside a loop cannot be "
                                      "recorded (TF cannot either). Set a variable and `break`, then return it after "
                                      "the loop.")
        line = node.lineno
        true_fn, false_fn = f"if_true_{line}", f"if_false_{line}"
        results = [] if returns else [ast.Return(value=self._tuple(handed))]
        defs = [self._def(true_fn, handed, node.body + results, node),
                self._def(false_fn, handed, (node.orelse or []) + results, node.orelse[0] if node.orelse else node)]
        call = _call(_ag("if_stmt"), [node.test, _name(true_fn), _name(false_fn), self._values(handed, node)],
                     [ast.keyword("returns", ast.Constant(True))] if returns else [])
        what = ("both branches return" if returns else f"it sets {', '.join(handed)}" if handed else
                "it sets no variable")
        note = _comment(f"line {line}: `{_source_line(self.lines, node)}` -> ag.if_stmt (me.cond if the "
                        f"condition is a tensor); {what}", node)
        final = ast.Return(value=call) if returns else self._set(handed, call)
        return [note] + defs + [ast.copy_location(final, node)]

    # ---- while and for ---------------------------------------------------------------------------
    def visit_While(self, node):
        if node.orelse or _contains(node.body, ast.Return, into_loops=False) or self.python_only:
            return self._python_loop(node, "test")
        handed = self.vars.handed_on(node.body, node, self.loops[-1] if self.loops else None)
        self.loops.append(node)
        self.generic_visit(node)
        self.loops.pop()
        line = node.lineno
        test_fn, body_fn = f"loop_test_{line}", f"loop_body_{line}"
        defs = [self._def(test_fn, handed, [ast.Return(value=node.test)], node),
                self._def(body_fn, handed, node.body + [ast.Return(value=self._tuple(handed))], node)]
        call = _call(_ag("while_stmt"), [_name(test_fn), _name(body_fn), self._values(handed, node)])
        note = _comment(f"line {line}: `{_source_line(self.lines, node)}` -> ag.while_stmt (me.while_loop if the "
                        f"condition is a tensor); loop variables: {', '.join(handed) or 'none'}", node)
        return [note] + defs + [ast.copy_location(self._set(handed, call), node)]

    def visit_For(self, node):
        if node.orelse or _contains(node.body, ast.Return, into_loops=False) or self.python_only:
            return self._python_loop(node, "iter")
        target_names = self.vars.assigned([ast.Assign(targets=[node.target], value=ast.Constant(0))])
        handed = self.vars.handed_on(node.body, node, self.loops[-1] if self.loops else None, exclude=target_names)
        extra = getattr(node, "ag_extra_test", None)
        self.loops.append(node)
        self.generic_visit(node)
        self.loops.pop()
        line = node.lineno
        body_fn, test_fn = f"loop_body_{line}", f"loop_test_{line}"
        item = f"item_{line}"
        body = [ast.copy_location(ast.Assign(targets=[node.target], value=_name(item)), node)]
        defs = [self._def(body_fn, [item] + handed, body + node.body + [ast.Return(value=self._tuple(handed))],
                          node)]
        keywords = []
        if extra is not None:
            defs.insert(0, self._def(test_fn, handed, [ast.Return(value=self.visit(extra))], node))
            keywords.append(ast.keyword("extra_test", _name(test_fn)))
        call = _call(_ag("for_stmt"), [self._range(node.iter), _name(body_fn), self._values(handed, node)], keywords)
        note = _comment(f"line {line}: `{_source_line(self.lines, node)}` -> ag.for_stmt (me.while_loop if it "
                        f"iterates a tensor); loop variables: {', '.join(handed) or 'none'}", node)
        return [note] + defs + [ast.copy_location(self._set(handed, call), node)]

    def _python_loop(self, node, field):
        self.loops.append(node)
        self.generic_visit(node)
        self.loops.pop()
        why = ("this loop has a `return` inside: a return statement cannot be placed inside a graph loop (TF "
               "cannot either). Set a variable and `break`, then return it after the loop."
               if _contains(node.body, ast.Return, into_loops=False) else
               "a `try` around a loop on a tensor cannot become a graph (a graph has no exceptions). Move the loop "
               "out of the `try`." if self.python_only else
               "a loop with an `else:` clause cannot become a graph loop. Set a flag where you `break` and test it "
               "after the loop instead.")
        return self._stays_python(node, field, why)

    # ---- building blocks -------------------------------------------------------------------------
    @staticmethod
    def _range(iterable):
        """``me.range(n)`` / ``range(n)`` -> ``ag.range_(me.range, n)``: a graph loop's counter if n is symbolic."""
        if isinstance(iterable, ast.Call) and not iterable.keywords and (
                (isinstance(iterable.func, ast.Attribute) and iterable.func.attr == "range")
                or (isinstance(iterable.func, ast.Name) and iterable.func.id == "range")):
            return ast.copy_location(_call(_ag("range_"), [iterable.func] + iterable.args), iterable)
        return iterable

    def _set(self, names, call):
        """``(y,) = call`` (or just ``call`` when the statement sets no variable)."""
        if not names:
            return ast.Expr(call)
        return ast.Assign(targets=[self._tuple(names, store=True)], value=call)

    @staticmethod
    def _tuple(names, store=False):
        return ast.Tuple(elts=[_name(n, store) for n in names], ctx=ast.Store() if store else ast.Load())

    def _values(self, names, stmt):
        """The current values of ``names``: ``ag.maybe(locals(), 'y')`` for one that may have none yet."""
        elts = [_name(n) if self.vars.defined_before(n, stmt) else
                _call(_ag("maybe"), [_call(_name("locals"), []), ast.Constant(n)]) for n in names]
        return ast.Tuple(elts=elts, ctx=ast.Load())

    def _def(self, name, params, body, at):
        args = ast.arguments(posonlyargs=[], args=[ast.arg(arg=p) for p in params], kwonlyargs=[], kw_defaults=[],
                             defaults=[])
        body = body or [ast.Pass()]
        declared = [n for n in self.vars.assigned(body) if n in self.vars.globals]
        if declared:   # `global counter` in the function: its branch and loop functions assign the same global
            body = [ast.copy_location(ast.Global(names=declared), at)] + body
        fn = ast.FunctionDef(name=name, args=args, body=body, decorator_list=[], returns=None)
        return ast.copy_location(fn, at)


def convert_tree(fn_node, lines):
    """Passes 1-3 on a ``def``'s tree; returns it with the to_code comment markers in place."""
    for n in _walk_body(fn_node.body):
        if isinstance(n, (ast.Yield, ast.YieldFrom)):
            raise ConversionError(
                f"line {n.lineno} (`{_source_line(lines, n)}`): `yield` makes a generator, which cannot become a "
                f"graph. Compute the values with a tensor loop and return them (or a me.data.Dataset), or mark the "
                f"function @me.autograph.experimental.do_not_convert.")
        if isinstance(n, ast.Nonlocal):
            raise NotConverted(f"it declares `nonlocal {', '.join(n.names)}` (line {n.lineno}), which the converted "
                               f"copy could not share with the enclosing function")
    fn_node.decorator_list = []
    jumps = Jumps()
    jumps.function(fn_node)
    ast.fix_missing_locations(fn_node)      # the flags' names take their statement's line
    variables = Variables(fn_node, jumps.flags)
    fn_node.body = _flatten(ControlFlow(variables, lines).visit(s) for s in fn_node.body)
    ast.fix_missing_locations(fn_node)
    return fn_node


def _flatten(results):
    out = []
    for r in results:
        out.extend(r if isinstance(r, list) else [r])
    return out


class StripComments(ast.NodeTransformer):
    def visit_Expr(self, node):
        if isinstance(node.value, ast.Call) and isinstance(node.value.func, ast.Name) and \
                node.value.func.id == COMMENT:
            return None
        return node
