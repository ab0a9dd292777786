/** The directory's own records of users and groups, in neither version's shape (views render them). */

export type Address = {
  streetAddress: string | null;
  locality: string | null;
  region: string | null;
  postalCode: string | null;
  country: string | null;
};

export const ENTERPRISE_FIELDS = ['employeeNumber', 'costCenter', 'organization', 'division', 'department'] as const;
export type EnterpriseField = (typeof ENTERPRISE_FIELDS)[number];
export type Enterprise = Record<EnterpriseField, string | null> & { managerId: string | null };

/** Profile fields that are plain strings: replaced as given, cleared with a single space. */
export const TEXT_FIELDS = ['displayName', 'title', 'userType', 'preferredLanguage', 'locale', 'timezone'] as const;
export type TextField = (typeof TEXT_FIELDS)[number];

export type UserRecord = {
  readonly id: string;
  readonly createdMs: number;
  externalId: string;
  /** Also the nickName: the vendor keeps one field under both names. */
  userName: string;
  name: { givenName: string | null; familyName: string | null; honorificPrefix: string | null };
  displayName: string;
  title: string;
  userType: string | null;
  preferredLanguage: string | null;
  locale: string | null;
  timezone: string | null;
  profileUrl: string | null;
  active: boolean;
  primaryEmail: string;
  secondaryEmail: string | null;
  primaryPhone: string | null;
  mobilePhone: string | null;
  photo: string | null;
  address: Address | null;
  role: string | null;
  enterprise: Enterprise;
  /** A multi-channel guest (`restricted`); null for a full member. */
  guest: { expiration: string | null } | null;
  /** A single-channel guest (`ultra_restricted`): only the control API makes one; groups refuse them. */
  singleChannelGuest: boolean;
  startDate: string | null;
};

export type GroupRecord = {
  readonly id: string;
  readonly createdMs: number;
  displayName: string;
  /** Insertion order is the order members are listed in. */
  members: Set<string>;
  /** Channels linked to the group in the product; while any remain, DELETE is refused. */
  linkedChannels: number;
};

export function blankEnterprise(): Enterprise {
  return { employeeNumber: null, costCenter: null, organization: null, division: null, department: null, managerId: null };
}

/** A user with every attribute blank "per the attribute's type", as PUT leaves what it omits. */
export function blankUser(id: string, createdMs: number): UserRecord {
  return {
    id,
    createdMs,
    externalId: '',
    userName: '',
    name: { givenName: null, familyName: null, honorificPrefix: null },
    displayName: '',
    title: '',
    userType: null,
    preferredLanguage: null,
    locale: null,
    timezone: null,
    profileUrl: null,
    active: true,
    primaryEmail: '',
    secondaryEmail: null,
    primaryPhone: null,
    mobilePhone: null,
    photo: null,
    address: null,
    role: null,
    enterprise: blankEnterprise(),
    guest: null,
    singleChannelGuest: false,
    startDate: null,
  };
}

export function cloneUser(user: UserRecord): UserRecord {
  return {
    ...user,
    name: { ...user.name },
    address: user.address ? { ...user.address } : null,
    enterprise: { ...user.enterprise },
    guest: user.guest ? { ...user.guest } : null,
  };
}
