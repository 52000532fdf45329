import ipaddr from 'ipaddr.js';

/** Parses a CIDR entry (IPv4 or IPv6; a bare address is a /32 or /128); undefined if invalid. */
export function parseCidr(entry: string): [ipaddr.IPv4 | ipaddr.IPv6, number] | undefined {
  try {
    if (entry.includes('/')) return ipaddr.parseCIDR(entry);
    const addr = ipaddr.parse(entry);
    return [addr, addr.kind() === 'ipv4' ? 32 : 128];
  } catch {
    return undefined;
  }
}

/** The canonical text of a CIDR entry, so duplicates can be recognised. */
export function normalizeCidr(entry: string): string | undefined {
  const parsed = parseCidr(entry.trim());
  if (!parsed) return undefined;
  const [addr, bits] = parsed;
  return `${addr.toString()}/${bits}`;
}

/** An empty list allows every address; IPv4-mapped IPv6 clients match IPv4 entries. */
export function ipAllowed(ip: string, whitelist: readonly string[]): boolean {
  if (whitelist.length === 0) return true;
  let addr: ipaddr.IPv4 | ipaddr.IPv6;
  try {
    addr = ipaddr.process(ip);
  } catch {
    return false;
  }
  return whitelist.some((entry) => {
    const range = parseCidr(entry);
    return range !== undefined && range[0].kind() === addr.kind() && addr.match(range);
  });
}
