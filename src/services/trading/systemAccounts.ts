import type { Db } from '../../infra/database.ts';

/**
 * The non-user ledger accounts on the other side of deposits (custody) and fees. They
 * keep every transfer balanced; their ids are never shown to users.
 */
export async function ensureSystemAccounts(db: Db): Promise<{ custody: bigint; fees: bigint }> {
  const one = async (role: 'CUSTODY' | 'FEES') =>
    (
      await db.account.upsert({
        where: { systemRole: role },
        update: {},
        create: { publicId: `system-${role.toLowerCase()}`, kind: 'SYSTEM', systemRole: role, label: role },
        select: { id: true },
      })
    ).id;
  return { custody: await one('CUSTODY'), fees: await one('FEES') };
}
