import { createSecretKey, type KeyObject } from 'node:crypto';
import { SignJWT, jwtVerify, errors } from 'jose';

/** Claims both services sign (contract §3); `aud` keeps one service's token out of the other. */
export interface TokenClaims {
  sub: string;
  role: string;
  company_name: string | null;
  name: string;
}

export interface TokenService {
  sign(claims: TokenClaims): Promise<string>;
  verify(token: string): Promise<TokenClaims>;
  /** Called with the claims of every token this service signs (a login): the guards warm their actor cache. */
  onSigned(listener: (claims: TokenClaims) => void): void;
}

export class InvalidTokenError extends Error {
  constructor(readonly reason: 'expired' | 'invalid') {
    super(reason === 'expired' ? '登录已过期，请重新登录' : '无效的登录凭证');
  }
}

const ALGORITHM = 'HS256';
/** Verified tokens remembered at most; a handheld keeps one token for its 12 hours. */
const VERIFIED_TOKENS_MAX = 10_000;

export function createTokenService(secret: string, audience: string, lifetimeSeconds = 12 * 3600): TokenService {
  // imported once: jose would otherwise import the raw secret as a key on every call
  const key = createSecretKey(new TextEncoder().encode(secret));
  const verified = new VerifiedTokens(VERIFIED_TOKENS_MAX);
  const listeners: ((claims: TokenClaims) => void)[] = [];
  return {
    async sign(claims) {
      const expiresAtSeconds = Math.floor(Date.now() / 1000) + lifetimeSeconds;
      const token = await new SignJWT({ role: claims.role, company_name: claims.company_name, name: claims.name })
        .setProtectedHeader({ alg: ALGORITHM, typ: 'JWT' })
        .setSubject(claims.sub)
        .setAudience(audience)
        .setIssuedAt()
        .setExpirationTime(expiresAtSeconds)
        .sign(key);
      // signed here, so valid by construction: its first use needs no signature check, which runs off the event
      // loop and would let the first calls made with a new token overtake each other (the idempotency lock)
      verified.remember(token, { ...claims }, expiresAtSeconds * 1000);
      for (const listener of listeners) listener(claims);
      return token;
    },
    onSigned(listener) {
      listeners.push(listener);
    },
    async verify(token) {
      const known = verified.get(token);
      if (known) return known;
      const { claims, expiresAtMs } = await verifySignature(token, key, audience);
      verified.remember(token, claims, expiresAtMs);
      return claims;
    },
  };
}

async function verifySignature(token: string, key: KeyObject, audience: string): Promise<{ claims: TokenClaims; expiresAtMs: number }> {
  try {
    const { payload } = await jwtVerify(token, key, { algorithms: [ALGORITHM], audience });
    if (typeof payload.sub !== 'string') throw new InvalidTokenError('invalid');
    const claims = {
      sub: payload.sub,
      role: String(payload.role ?? ''),
      company_name: typeof payload.company_name === 'string' ? payload.company_name : null,
      name: String(payload.name ?? ''),
    };
    return { claims, expiresAtMs: typeof payload.exp === 'number' ? payload.exp * 1000 : Number.POSITIVE_INFINITY };
  } catch (err) {
    if (err instanceof errors.JWTExpired) throw new InvalidTokenError('expired');
    throw new InvalidTokenError('invalid');
  }
}

/**
 * Token strings whose signature, audience and expiry were checked, until they expire. Only the exact
 * string that was verified is found again, so the cache can never accept a token the signature check
 * would refuse. It says nothing about the user: the account is still checked on every request.
 */
class VerifiedTokens {
  private readonly entries = new Map<string, { claims: TokenClaims; expiresAtMs: number }>();

  constructor(private readonly max: number) {}

  get(token: string): TokenClaims | undefined {
    const entry = this.entries.get(token);
    if (!entry) return undefined;
    if (entry.expiresAtMs > Date.now()) return entry.claims;
    this.entries.delete(token);
    return undefined;
  }

  remember(token: string, claims: TokenClaims, expiresAtMs: number): void {
    if (this.entries.size >= this.max) this.entries.delete(this.entries.keys().next().value!);
    this.entries.set(token, { claims, expiresAtMs });
  }
}
