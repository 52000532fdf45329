import path from 'node:path';
import ts from 'typescript';
import { ERROR_CATALOGUE, type ErrorCode } from '../../src/domain/errorCatalogue.ts';

/**
 * The codes each /v1 route can give, read from the code: from the `handler` of every
 * `defineRoute({ operationId, ... })` in src/transport/rest/routes/, every function,
 * method and constructor it calls (resolved by the type checker, transitively) is walked,
 * and every `errors.X` / `codes.X` in them is collected; `errors[expr]` adds the codes
 * `expr`'s type allows. An over-approximation: a branch that cannot run still counts, and
 * a call through an interface (a port the services are given) is not followed.
 */
export function reachableCodes(root: string): Map<string, Set<ErrorCode>> {
  const configFile = ts.readConfigFile(path.join(root, 'tsconfig.json'), ts.sys.readFile);
  const parsed = ts.parseJsonConfigFileContent(configFile.config, ts.sys, root);
  const program = ts.createProgram({ rootNames: parsed.fileNames.filter((f) => f.includes('/src/')), options: parsed.options });
  const checker = program.getTypeChecker();
  const isCode = (s: string): s is ErrorCode => Object.hasOwn(ERROR_CATALOGUE, s);
  const memo = new Map<ts.Node, Set<ts.Node>>();

  /** The declarations with a body that `node` calls or constructs directly. */
  const callees = (node: ts.Node): Set<ts.Node> => {
    const known = memo.get(node);
    if (known) return known;
    const out = new Set<ts.Node>();
    const visit = (n: ts.Node): void => {
      let target: ts.Node | undefined;
      if (ts.isCallExpression(n) || ts.isNewExpression(n)) target = n.expression;
      if (ts.isIdentifier(n) || ts.isPropertyAccessExpression(n)) target ??= n;
      if (target) {
        let symbol = checker.getSymbolAtLocation(ts.isPropertyAccessExpression(target) ? target.name : target);
        if (symbol && symbol.flags & ts.SymbolFlags.Alias) symbol = checker.getAliasedSymbol(symbol);
        for (const d of symbol?.declarations ?? []) {
          if (!d.getSourceFile().fileName.includes('/src/')) continue;
          if ((ts.isFunctionDeclaration(d) || ts.isMethodDeclaration(d) || ts.isConstructorDeclaration(d) || ts.isGetAccessorDeclaration(d)) && d.body) out.add(d);
          else if (ts.isClassDeclaration(d)) d.members.forEach((m) => ts.isConstructorDeclaration(m) && m.body && out.add(m));
          else if (ts.isVariableDeclaration(d) && d.initializer && (ts.isArrowFunction(d.initializer) || ts.isFunctionExpression(d.initializer))) out.add(d.initializer);
          else if (ts.isPropertyAssignment(d) && (ts.isArrowFunction(d.initializer) || ts.isFunctionExpression(d.initializer))) out.add(d.initializer);
          else if (ts.isShorthandPropertyAssignment(d)) {
            const value = checker.getShorthandAssignmentValueSymbol(d);
            for (const vd of value?.declarations ?? []) if (ts.isFunctionDeclaration(vd) && vd.body) out.add(vd);
          }
        }
      }
      ts.forEachChild(n, visit);
    };
    visit(node);
    memo.set(node, out);
    return out;
  };

  const codesIn = (node: ts.Node, into: Set<ErrorCode>): void => {
    const visit = (n: ts.Node): void => {
      if (ts.isPropertyAccessExpression(n) && ts.isIdentifier(n.expression) && (n.expression.text === 'errors' || n.expression.text === 'codes') && isCode(n.name.text)) into.add(n.name.text);
      if (ts.isElementAccessExpression(n) && ts.isIdentifier(n.expression) && n.expression.text === 'errors') {
        const t = checker.getTypeAtLocation(n.argumentExpression);
        for (const part of t.isUnion() ? t.types : [t]) if (part.isStringLiteral() && isCode(part.value)) into.add(part.value);
      }
      ts.forEachChild(n, visit);
    };
    visit(node);
  };

  /** `'createOrder'`, or each name of `${verb}Trigger` where verb's type is a union of literals (one handler serving both). */
  const operationIds = (e: ts.Expression): string[] => {
    if (ts.isStringLiteralLike(e)) return [e.text];
    if (!ts.isTemplateExpression(e) || e.templateSpans.length !== 1) return [];
    const span = e.templateSpans[0] as ts.TemplateSpan;
    const t = checker.getTypeAtLocation(span.expression);
    return (t.isUnion() ? t.types : [t]).flatMap((part) => (part.isStringLiteral() ? [e.head.text + part.value + span.literal.text] : []));
  };

  const out = new Map<string, Set<ErrorCode>>();
  for (const sf of program.getSourceFiles()) {
    if (!sf.fileName.includes('/src/transport/rest/routes/')) continue;
    const visit = (n: ts.Node): void => {
      if (ts.isCallExpression(n) && ts.isIdentifier(n.expression) && n.expression.text === 'defineRoute' && n.arguments[0] && ts.isObjectLiteralExpression(n.arguments[0])) {
        const props = n.arguments[0].properties;
        const idProp = props.find((p) => p.name && ts.isIdentifier(p.name) && p.name.text === 'operationId');
        const handler = props.find((p) => p.name && ts.isIdentifier(p.name) && p.name.text === 'handler');
        const names = idProp && ts.isPropertyAssignment(idProp) ? operationIds(idProp.initializer) : [];
        if (names.length > 0 && handler) {
          const codes = new Set<ErrorCode>();
          const seen = new Set<ts.Node>([handler]);
          const queue: ts.Node[] = [handler];
          for (let next = queue.pop(); next; next = queue.pop()) {
            codesIn(next, codes);
            for (const c of callees(next)) if (!seen.has(c)) (seen.add(c), queue.push(c));
          }
          for (const name of names) out.set(name, codes);
        }
      }
      ts.forEachChild(n, visit);
    };
    visit(sf);
  }
  return out;
}
