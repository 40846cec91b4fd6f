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
}

export class InvalidTokenError extends Error {
  constructor(readonly reason: 'expired' | 'invalid') {
    super(reason === 'expired' ? '登录已过期，请重新登录' : '无效的登录凭证');
  }
}

const ALGORITHM = 'HS256';

export function createTokenService(secret: string, audience: string, lifetimeSeconds = 12 * 3600): TokenService {
  const key = new TextEncoder().encode(secret);
  return {
    async sign(claims) {
      return new SignJWT({ role: claims.role, company_name: claims.company_name, name: claims.name })
        .setProtectedHeader({ alg: ALGORITHM, typ: 'JWT' })
        .setSubject(claims.sub)
        .setAudience(audience)
        .setIssuedAt()
        .setExpirationTime(Math.floor(Date.now() / 1000) + lifetimeSeconds)
        .sign(key);
    },
    async verify(token) {
      try {
        const { payload } = await jwtVerify(token, key, { algorithms: [ALGORITHM], audience });
        if (typeof payload.sub !== 'string') throw new InvalidTokenError('invalid');
        return {
          sub: payload.sub,
          role: String(payload.role ?? ''),
          company_name: typeof payload.company_name === 'string' ? payload.company_name : null,
          name: String(payload.name ?? ''),
        };
      } catch (err) {
        if (err instanceof errors.JWTExpired) throw new InvalidTokenError('expired');
        throw new InvalidTokenError('invalid');
      }
    },
  };
}
